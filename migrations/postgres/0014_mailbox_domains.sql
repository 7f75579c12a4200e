-- Mail.td Pro custom domains, as migrations/sqlite/0014_mailbox_domains.sql.

CREATE TABLE mailbox_pro_domains (
    id            TEXT    PRIMARY KEY,           -- UUID
    owner_id      TEXT    NOT NULL REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,
    domain        TEXT    NOT NULL UNIQUE,       -- lower-cased FQDN; the UNIQUE decides races across users
    verify_token  TEXT    NOT NULL,              -- the TXT value that proves ownership
    verified_at   BIGINT,                        -- NULL while pending
    mx_configured BIGINT  NOT NULL DEFAULT 0,    -- 1 when the last verification saw an MX pointing here
    created_at    BIGINT  NOT NULL
);

CREATE INDEX mailbox_pro_domains_by_owner ON mailbox_pro_domains (owner_id, created_at, id);

UPDATE mailbox_pro_users SET max_domains = 5 WHERE max_domains = 0;
