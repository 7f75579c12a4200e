-- Mail.td Pro webhooks, as migrations/sqlite/0018_mailbox_webhooks.sql. Instances claim due events with
-- `FOR UPDATE SKIP LOCKED` and a lease, so each event is delivered by one instance.

CREATE TABLE mailbox_webhooks (
    id                TEXT   PRIMARY KEY,        -- UUID
    owner_id          TEXT   NOT NULL UNIQUE REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,  -- one per user
    url               TEXT   NOT NULL,
    events            TEXT   NOT NULL,           -- comma-separated event types ('email.received')
    secret            TEXT   NOT NULL,           -- whsec_..., the HMAC key exactly as shown to the user
    status            TEXT   NOT NULL DEFAULT 'active',
    failure_count     BIGINT NOT NULL DEFAULT 0,
    last_triggered_at BIGINT,
    created_at        BIGINT NOT NULL
);

CREATE TABLE mailbox_webhook_events (
    id              TEXT   PRIMARY KEY,          -- evt_<message id>
    webhook_id      TEXT   NOT NULL REFERENCES mailbox_webhooks(id) ON DELETE CASCADE,
    event_type      TEXT   NOT NULL,
    message_id      TEXT   NOT NULL,
    address         TEXT   NOT NULL,
    account_id      TEXT,
    from_json       TEXT   NOT NULL,
    envelope_from   TEXT   NOT NULL,
    subject         TEXT,
    preview         TEXT   NOT NULL,
    size            BIGINT NOT NULL,
    received_at     BIGINT NOT NULL,
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_ms BIGINT NOT NULL,
    lease_until_ms  BIGINT NOT NULL DEFAULT 0,
    lease_token     TEXT
);

CREATE INDEX mailbox_webhook_events_due ON mailbox_webhook_events (next_attempt_ms);

CREATE TABLE mailbox_webhook_deliveries (
    id          TEXT   PRIMARY KEY,
    webhook_id  TEXT   NOT NULL REFERENCES mailbox_webhooks(id) ON DELETE CASCADE,
    event_id    TEXT   NOT NULL,
    event_type  TEXT   NOT NULL,
    attempt     BIGINT NOT NULL,
    status_code BIGINT,
    error       TEXT,
    duration_ms BIGINT,
    created_ms  BIGINT NOT NULL
);

CREATE INDEX mailbox_webhook_deliveries_by_webhook ON mailbox_webhook_deliveries (webhook_id, created_ms);

CREATE OR REPLACE FUNCTION mailbox_webhook_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO mailbox_webhook_events (id, webhook_id, event_type, message_id, address, account_id, from_json,
        envelope_from, subject, preview, size, received_at, next_attempt_ms)
    SELECT 'evt_' || NEW.id, w.id, 'email.received', NEW.id, NEW.address,
        (SELECT a.id FROM mailbox_accounts a WHERE a.address = NEW.address), NEW.from_json, NEW.envelope_from,
        NEW.subject, NEW.preview, NEW.size, NEW.received_at, NEW.received_at * 1000
    FROM mailbox_webhooks w
    WHERE w.status = 'active' AND w.owner_id = COALESCE(
        (SELECT a.owner_id FROM mailbox_accounts a WHERE a.address = NEW.address),
        (SELECT d.owner_id FROM mailbox_pro_domains d
            WHERE d.domain = split_part(NEW.address, '@', 2) AND d.verified_at IS NOT NULL));
    RETURN NULL;
END
$$;

CREATE TRIGGER mailbox_webhook_enqueue AFTER INSERT ON mail_messages
    FOR EACH ROW WHEN (NEW.folder = 'inbox') EXECUTE FUNCTION mailbox_webhook_enqueue();
