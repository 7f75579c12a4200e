-- A Pro user's second factor (issue 88 item 3; Sources/SecondFactors, SecondFactorTables.proUsers; as
-- migrations/sqlite/0081_pro_user_second_factor.sql): the owners' tables of 0074 again for Mail.td's Pro users, one
-- store over both. A TOTP secret (RFC 6238), on once the user typed a first code (confirmed_at), and the last time step
-- accepted (last_step: a code of that step or an earlier one is refused, so a code signs in once); their recovery
-- codes, stored as SHA-256 digests, each used once (used_at). The secret is sealed with POSTERN_KEY_SECRET
-- (KeySealer, bound to the Pro user), as the owners' are. Expand only: new tables, which a release before it never
-- reads.
CREATE TABLE pro_user_totp (
    pro_user_id  TEXT    PRIMARY KEY NOT NULL REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,
    secret       BYTEA   NOT NULL,
    created_at   BIGINT  NOT NULL,  -- Unix seconds
    confirmed_at BIGINT,            -- NULL: set up, not yet confirmed with a first code (it asks for no code yet)
    last_step    BIGINT             -- the last 30-second step accepted; NULL before the first
);

CREATE TABLE pro_user_recovery_codes (
    pro_user_id TEXT    NOT NULL REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,
    digest      BYTEA   NOT NULL CHECK (octet_length(digest) = 32),
    created_at  BIGINT  NOT NULL,
    used_at     BIGINT,             -- NULL: still usable
    PRIMARY KEY (pro_user_id, digest)
);
