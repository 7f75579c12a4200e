-- One custom-domain model (issue 38): owners' domains (owner_domains, 0020) and Mail.td Pro users' domains
-- (mailbox_pro_domains, 0014) become claims in one table, so one domain has at most one verified holder whichever
-- surface proved it: the partial unique index over verified claims decides, where two tables had to ask each other.
-- A claim's holder is an owner or a Pro user (exactly one column set, each cascading from its holder's table); ids
-- are kept, so the ids the owner pages and /api/user/domains show do not change. Should both old tables hold one
-- domain verified (the race the two tables guarded against), the claim verified first keeps it and the other goes
-- back to pending, where it lapses. The webhook trigger of 0023 read mailbox_pro_domains: it is made again reading
-- the claims (as migrations/postgres/0033_custom_domain_claims.sql).
CREATE TABLE custom_domain_claims (
    id            TEXT    PRIMARY KEY NOT NULL,                            -- lowercase UUID
    owner_id      TEXT    REFERENCES owners(id) ON DELETE CASCADE,         -- an owner's claim (agent inboxes)
    pro_user_id   TEXT    REFERENCES mailbox_pro_users(id) ON DELETE CASCADE, -- a Mail.td Pro user's claim
    domain        TEXT    NOT NULL,                                        -- lower-cased FQDN
    verify_token  TEXT    NOT NULL,                                        -- the TXT value that proves control
    verified_at   INTEGER,                                                 -- NULL while pending
    mx_configured INTEGER NOT NULL DEFAULT 0,                              -- 1 when the last check saw our MX
    created_at    INTEGER NOT NULL,
    CHECK ((owner_id IS NULL) <> (pro_user_id IS NULL))
) STRICT;

INSERT INTO custom_domain_claims (id, owner_id, pro_user_id, domain, verify_token, verified_at, mx_configured,
    created_at)
    SELECT id, owner_id, NULL, domain, verify_token, verified_at, mx_configured, created_at FROM owner_domains;
INSERT INTO custom_domain_claims (id, owner_id, pro_user_id, domain, verify_token, verified_at, mx_configured,
    created_at)
    SELECT id, NULL, owner_id, domain, verify_token, verified_at, mx_configured, created_at FROM mailbox_pro_domains;
UPDATE custom_domain_claims SET verified_at = NULL
WHERE verified_at IS NOT NULL AND EXISTS (
    SELECT 1 FROM custom_domain_claims e
    WHERE e.domain = custom_domain_claims.domain AND e.verified_at IS NOT NULL
    AND (e.verified_at < custom_domain_claims.verified_at
        OR (e.verified_at = custom_domain_claims.verified_at AND e.id < custom_domain_claims.id)));

CREATE UNIQUE INDEX custom_domain_claims_verified ON custom_domain_claims (domain) WHERE verified_at IS NOT NULL;
CREATE UNIQUE INDEX custom_domain_claims_by_owner ON custom_domain_claims (domain, owner_id);
CREATE UNIQUE INDEX custom_domain_claims_by_pro_user ON custom_domain_claims (domain, pro_user_id);
CREATE INDEX custom_domain_claims_of_owner ON custom_domain_claims (owner_id, created_at, id);
CREATE INDEX custom_domain_claims_of_pro_user ON custom_domain_claims (pro_user_id, created_at, id);

DROP TRIGGER mailbox_webhook_enqueue;
DROP TABLE owner_domains;
DROP TABLE mailbox_pro_domains;

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
        (SELECT d.pro_user_id FROM custom_domain_claims d
            WHERE d.domain = substr(NEW.address, instr(NEW.address, '@') + 1) AND d.verified_at IS NOT NULL));
END;
