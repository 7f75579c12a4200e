-- Several pending claims on one domain, at most one verified (both custom-domain tables): a claim is proven by its
-- own TXT token alone, the first to verify wins and the others are deleted, and a pending claim lapses after the
-- verification window (7 days). A domain's UNIQUE let an unproven claim block everyone else for ever; it gives way
-- to a partial unique index over verified claims. SQLite cannot drop a column constraint, so both tables are rebuilt
-- with the same columns, rows, foreign keys and indexes (as migrations/postgres/0024_domain_claims.sql, which drops
-- the constraints). A holder has one claim per domain. The webhook trigger of 0023 reads mailbox_pro_domains, and
-- SQLite refuses to rename a table into place while a trigger names a missing one: it is dropped first and made again
-- as it was.
DROP TRIGGER mailbox_webhook_enqueue;

CREATE TABLE mailbox_pro_domains_0024 (
    id            TEXT PRIMARY KEY,              -- UUID
    owner_id      TEXT NOT NULL REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,
    domain        TEXT NOT NULL,                 -- lower-cased FQDN
    verify_token  TEXT NOT NULL,                 -- the TXT value that proves ownership
    verified_at   INTEGER,                       -- NULL while pending
    mx_configured INTEGER NOT NULL DEFAULT 0,    -- 1 when the last verification saw an MX pointing here
    created_at    INTEGER NOT NULL
) STRICT;
INSERT INTO mailbox_pro_domains_0024 (id, owner_id, domain, verify_token, verified_at, mx_configured, created_at)
    SELECT id, owner_id, domain, verify_token, verified_at, mx_configured, created_at FROM mailbox_pro_domains;
DROP TABLE mailbox_pro_domains;
ALTER TABLE mailbox_pro_domains_0024 RENAME TO mailbox_pro_domains;
CREATE INDEX mailbox_pro_domains_by_owner ON mailbox_pro_domains (owner_id, created_at, id);
CREATE UNIQUE INDEX mailbox_pro_domains_verified ON mailbox_pro_domains (domain) WHERE verified_at IS NOT NULL;
CREATE UNIQUE INDEX mailbox_pro_domains_by_holder ON mailbox_pro_domains (domain, owner_id);

CREATE TRIGGER mailbox_webhook_enqueue AFTER INSERT ON mail_messages WHEN NEW.folder = 'inbox'
BEGIN
    INSERT INTO mailbox_webhook_events (id, webhook_id, event_type, message_id, address, account_id, from_json,
        envelope_from, subject, preview, size, received_at, next_attempt_ms)
    SELECT 'evt_' || NEW.id, w.id, 'email.received', NEW.id, NEW.address,
        COALESCE(
            (SELECT a.id FROM mailbox_accounts a WHERE a.address = NEW.address),
            (SELECT s.account_id FROM mailbox_sandboxes s WHERE s.address = NEW.address)),
        NEW.from_json, NEW.envelope_from, NEW.subject, NEW.preview, NEW.size, NEW.received_at,
        NEW.received_at * 1000
    FROM mailbox_webhooks w
    WHERE w.status = 'active' AND w.owner_id = COALESCE(
        (SELECT a.owner_id FROM mailbox_accounts a WHERE a.address = NEW.address),
        (SELECT s.owner_id FROM mailbox_sandboxes s WHERE s.address = NEW.address),
        (SELECT d.owner_id FROM mailbox_pro_domains d
            WHERE d.domain = substr(NEW.address, instr(NEW.address, '@') + 1) AND d.verified_at IS NOT NULL));
END;

CREATE TABLE owner_domains_0024 (
    id            TEXT    PRIMARY KEY NOT NULL,                            -- lowercase UUID
    owner_id      TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    domain        TEXT    NOT NULL,                                        -- lower-cased FQDN
    verify_token  TEXT    NOT NULL,                                        -- the TXT value that proves ownership
    verified_at   INTEGER,                                                 -- NULL while pending
    mx_configured INTEGER NOT NULL DEFAULT 0,                              -- 1 when the last check saw our MX
    created_at    INTEGER NOT NULL
) STRICT;
INSERT INTO owner_domains_0024 (id, owner_id, domain, verify_token, verified_at, mx_configured, created_at)
    SELECT id, owner_id, domain, verify_token, verified_at, mx_configured, created_at FROM owner_domains;
DROP TABLE owner_domains;
ALTER TABLE owner_domains_0024 RENAME TO owner_domains;
CREATE INDEX owner_domains_by_owner ON owner_domains (owner_id, created_at, id);
CREATE UNIQUE INDEX owner_domains_verified ON owner_domains (domain) WHERE verified_at IS NOT NULL;
CREATE UNIQUE INDEX owner_domains_by_holder ON owner_domains (domain, owner_id);
