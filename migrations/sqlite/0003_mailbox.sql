-- Mailbox accounts surface (Mail.td compatible): accounts, Pro users, Pro API tokens, and the secret
-- that authenticates stateless challenges. Times are Unix seconds.

CREATE TABLE mailbox_pro_users (
    id            TEXT PRIMARY KEY,              -- UUID
    email         TEXT NOT NULL UNIQUE,          -- lower-cased login
    password_hash TEXT NOT NULL,                 -- Argon2id, encoded
    max_accounts  INTEGER NOT NULL,
    max_domains   INTEGER NOT NULL DEFAULT 0,
    status        TEXT NOT NULL DEFAULT 'active',
    token_epoch   INTEGER NOT NULL DEFAULT 0,    -- Pro JWTs carry it as `ver`
    created_at    INTEGER NOT NULL
) STRICT;

CREATE TABLE mailbox_accounts (
    id            TEXT PRIMARY KEY,              -- UUID
    address       TEXT NOT NULL UNIQUE,          -- lower-cased local@domain; the UNIQUE decides races
    password_hash TEXT NOT NULL,                 -- Argon2id, encoded
    owner_id      TEXT REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,   -- NULL: free account
    quota         INTEGER NOT NULL,
    used          INTEGER NOT NULL DEFAULT 0,
    token_epoch   INTEGER NOT NULL DEFAULT 0,    -- mailbox JWTs carry it as `ver`; a reset bumps it
    created_at    INTEGER NOT NULL
) STRICT;

CREATE INDEX mailbox_accounts_by_owner ON mailbox_accounts (owner_id, created_at, id);

CREATE TABLE mailbox_pro_tokens (
    id           TEXT PRIMARY KEY,               -- UUID
    user_id      TEXT NOT NULL REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    digest       BLOB NOT NULL UNIQUE,           -- SHA-256 of the whole `tm_pro_...` token
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
) STRICT;

CREATE INDEX mailbox_pro_tokens_by_user ON mailbox_pro_tokens (user_id, created_at);

CREATE TABLE mailbox_secrets (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
) STRICT;
