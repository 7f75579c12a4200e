-- Mailbox accounts surface (Mail.td compatible), as migrations/sqlite/0003_mailbox.sql: accounts, Pro users, Pro API
-- tokens, and the secret that authenticates stateless challenges. Times are Unix seconds.

CREATE TABLE mailbox_pro_users (
    id            TEXT   PRIMARY KEY,            -- UUID
    email         TEXT   NOT NULL UNIQUE,        -- lower-cased login
    password_hash TEXT   NOT NULL,               -- Argon2id, encoded
    max_accounts  BIGINT NOT NULL,
    max_domains   BIGINT NOT NULL DEFAULT 0,
    status        TEXT   NOT NULL DEFAULT 'active',
    token_epoch   BIGINT NOT NULL DEFAULT 0,     -- Pro JWTs carry it as `ver`
    created_at    BIGINT NOT NULL
);

CREATE TABLE mailbox_accounts (
    id            TEXT   PRIMARY KEY,            -- UUID
    address       TEXT   NOT NULL UNIQUE,        -- lower-cased local@domain; the UNIQUE decides races
    password_hash TEXT   NOT NULL,               -- Argon2id, encoded
    owner_id      TEXT   REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,   -- NULL: free account
    quota         BIGINT NOT NULL,
    used          BIGINT NOT NULL DEFAULT 0,
    token_epoch   BIGINT NOT NULL DEFAULT 0,     -- mailbox JWTs carry it as `ver`; a reset bumps it
    created_at    BIGINT NOT NULL
);

CREATE INDEX mailbox_accounts_by_owner ON mailbox_accounts (owner_id, created_at, id);

CREATE TABLE mailbox_pro_tokens (
    id           TEXT   PRIMARY KEY,             -- UUID
    user_id      TEXT   NOT NULL REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,
    name         TEXT   NOT NULL,
    digest       BYTEA  NOT NULL UNIQUE,         -- SHA-256 of the whole `tm_pro_...` token
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at   BIGINT
);

CREATE INDEX mailbox_pro_tokens_by_user ON mailbox_pro_tokens (user_id, created_at);

-- Created race-free by whichever instance comes first (INSERT ... ON CONFLICT DO NOTHING, then read back).
CREATE TABLE mailbox_secrets (
    name  TEXT  PRIMARY KEY,
    value BYTEA NOT NULL
);
