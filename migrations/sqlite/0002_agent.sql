-- Surface 1 (Atomic Mail compatible agent signup): one row per agent account.
-- API keys are stored only as the SHA-256 digest of the key text; the UNIQUE constraints decide races
-- between two signups of one username. Revoked accounts keep their row (and username) with revoked_at set.
CREATE TABLE agent_accounts (
    id             TEXT    PRIMARY KEY NOT NULL,                          -- lowercase UUID
    username       TEXT    NOT NULL UNIQUE,
    api_key_digest BLOB    NOT NULL UNIQUE CHECK (length(api_key_digest) = 32),
    created_at     INTEGER NOT NULL,                                      -- Unix seconds
    revoked_at     INTEGER                                                -- Unix seconds, NULL while live
) STRICT;
