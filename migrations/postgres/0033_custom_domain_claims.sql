-- One table of custom-domain claims, as migrations/sqlite/0033_custom_domain_claims.sql: owner_domains and
-- mailbox_pro_domains are copied in (ids kept) and dropped, and the webhook trigger's function reads the claims.
CREATE TABLE custom_domain_claims (
    id            TEXT    PRIMARY KEY NOT NULL,                            -- lowercase UUID
    owner_id      TEXT    REFERENCES owners(id) ON DELETE CASCADE,         -- an owner's claim (agent inboxes)
    pro_user_id   TEXT    REFERENCES mailbox_pro_users(id) ON DELETE CASCADE, -- a Mail.td Pro user's claim
    domain        TEXT    NOT NULL,                                        -- lower-cased FQDN
    verify_token  TEXT    NOT NULL,                                        -- the TXT value that proves control
    verified_at   BIGINT,                                                  -- NULL while pending
    mx_configured BIGINT  NOT NULL DEFAULT 0,                              -- 1 when the last check saw our MX
    created_at    BIGINT  NOT NULL,
    CHECK ((owner_id IS NULL) <> (pro_user_id IS NULL))
);

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

DROP TABLE owner_domains;
DROP TABLE mailbox_pro_domains;

CREATE OR REPLACE FUNCTION mailbox_webhook_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
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
            WHERE d.domain = split_part(NEW.address, '@', 2) AND d.verified_at IS NOT NULL));
    RETURN NULL;
END
$$;
