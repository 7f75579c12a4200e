-- Atomic custom domains (issue 31, ../shared/api-docs/atomic-custom-domains.md): an owner adds a domain, proves it
-- by a TXT token at the apex (or an MX there naming this server), then creates agent inboxes on it. An inbox on a
-- custom domain is an agent account whose username is its whole address (`agent@example.com`); signup names never
-- hold an `@`, so the two never collide. Deleting a domain keeps the inboxes already made on it, as Mail.td does.
CREATE TABLE owner_domains (
    id            TEXT    PRIMARY KEY NOT NULL,                            -- lowercase UUID
    owner_id      TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    domain        TEXT    NOT NULL UNIQUE,                                 -- lower-cased FQDN; decides a race
    verify_token  TEXT    NOT NULL,                                        -- the TXT value that proves ownership
    verified_at   INTEGER,                                                 -- NULL while pending
    mx_configured INTEGER NOT NULL DEFAULT 0,                              -- 1 when the last check saw our MX
    created_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX owner_domains_by_owner ON owner_domains (owner_id, created_at, id);
