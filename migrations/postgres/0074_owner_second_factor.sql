-- An owner's second factor (issue 88 item 3; Sources/Owners; as migrations/sqlite/0074_owner_second_factor.sql):
-- a TOTP secret (RFC 6238), on once the owner typed a first code (confirmed_at), and the last time step accepted
-- (last_step: a code of that step or an earlier one is refused, so a code signs in once); their recovery codes, stored
-- as SHA-256 digests, each used once (used_at). On PostgreSQL the secret is sealed with POSTERN_KEY_SECRET
-- (KeySealer, bound to the owner), as the signing and DKIM keys are.
CREATE TABLE owner_totp (
    owner_id     TEXT    PRIMARY KEY NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    secret       BYTEA   NOT NULL,
    created_at   BIGINT  NOT NULL,  -- Unix seconds
    confirmed_at BIGINT,            -- NULL: set up, not yet confirmed with a first code (it asks for no code yet)
    last_step    BIGINT             -- the last 30-second step accepted; NULL before the first
);

CREATE TABLE owner_recovery_codes (
    owner_id   TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    digest     BYTEA   NOT NULL CHECK (octet_length(digest) = 32),
    created_at BIGINT  NOT NULL,
    used_at    BIGINT,              -- NULL: still usable
    PRIMARY KEY (owner_id, digest)
);

-- How each session was earned (an `amr`-like list, RFC 8176: `pwd`, `hwk`, `otp`, `fed`, `mfa`, space-separated);
-- empty for sessions opened before this migration.
ALTER TABLE owner_sessions ADD COLUMN methods TEXT NOT NULL DEFAULT '';
