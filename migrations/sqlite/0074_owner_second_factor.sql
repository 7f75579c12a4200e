-- An owner's second factor (issue 88 item 3; Sources/Owners; as migrations/postgres/0074_owner_second_factor.sql):
-- a TOTP secret (RFC 6238), on once the owner typed a first code (confirmed_at), and the last time step accepted
-- (last_step: a code of that step or an earlier one is refused, so a code signs in once); their recovery codes, stored
-- as SHA-256 digests, each used once (used_at). On SQLite the secret is kept in the clear, as the data directory's key
-- files are (the database file is mode 0600); on PostgreSQL it is sealed with POSTERN_KEY_SECRET (KeySealer).
CREATE TABLE owner_totp (
    owner_id     TEXT    PRIMARY KEY NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    secret       BLOB    NOT NULL,
    created_at   INTEGER NOT NULL,  -- Unix seconds
    confirmed_at INTEGER,           -- NULL: set up, not yet confirmed with a first code (it asks for no code yet)
    last_step    INTEGER            -- the last 30-second step accepted; NULL before the first
) STRICT;

CREATE TABLE owner_recovery_codes (
    owner_id   TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    digest     BLOB    NOT NULL CHECK (length(digest) = 32),
    created_at INTEGER NOT NULL,
    used_at    INTEGER,             -- NULL: still usable
    PRIMARY KEY (owner_id, digest)
) STRICT;

-- How each session was earned (an `amr`-like list, RFC 8176: `pwd`, `hwk`, `otp`, `fed`, `mfa`, space-separated);
-- empty for sessions opened before this migration.
ALTER TABLE owner_sessions ADD COLUMN methods TEXT NOT NULL DEFAULT '';
