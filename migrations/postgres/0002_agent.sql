-- Surface 1 (Atomic Mail compatible agent signup): one row per agent account (as migrations/sqlite/0002_agent.sql).
-- API keys are stored only as the SHA-256 digest of the key text; the UNIQUE constraints decide races between two
-- signups of one username, on any instance. Revoked accounts keep their row (and username) with revoked_at set.
CREATE TABLE agent_accounts (
    id             TEXT   PRIMARY KEY NOT NULL,                           -- lowercase UUID
    username       TEXT   NOT NULL UNIQUE,
    api_key_digest BYTEA  NOT NULL UNIQUE CHECK (octet_length(api_key_digest) = 32),
    created_at     BIGINT NOT NULL,                                       -- Unix seconds
    revoked_at     BIGINT                                                 -- Unix seconds, NULL while live
);
