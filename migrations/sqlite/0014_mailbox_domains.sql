-- Mail.td Pro custom domains: a domain belongs to one Pro user; it is verified by a TXT token at the apex, or by an
-- MX there that points at this server; once verified it takes mail at any address for its owner. Pending domains
-- expire 7 days after creation (410 domain_expired). Pro users get the contract's 5 domains unless the operator says
-- otherwise (`postern pro create --max-domains`); users made before this migration had 0.

CREATE TABLE mailbox_pro_domains (
    id            TEXT PRIMARY KEY,              -- UUID
    owner_id      TEXT NOT NULL REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,
    domain        TEXT NOT NULL UNIQUE,          -- lower-cased FQDN; the UNIQUE decides races across users
    verify_token  TEXT NOT NULL,                 -- the TXT value that proves ownership
    verified_at   INTEGER,                       -- NULL while pending
    mx_configured INTEGER NOT NULL DEFAULT 0,    -- 1 when the last verification saw an MX pointing here
    created_at    INTEGER NOT NULL
) STRICT;

CREATE INDEX mailbox_pro_domains_by_owner ON mailbox_pro_domains (owner_id, created_at, id);

UPDATE mailbox_pro_users SET max_domains = 5 WHERE max_domains = 0;
