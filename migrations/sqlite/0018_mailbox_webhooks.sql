-- Mail.td Pro webhooks (issue 30): one webhook per Pro user, the durable queue of its events and the log of its
-- delivery attempts. An event is queued by the trigger below in the same transaction as the message it announces, so
-- a message committed is an event committed: a restart or `kill -9` between acceptance and delivery loses nothing.
-- Instances share the queue by leasing rows (`lease_until_ms`); a lease that runs out lets another instance retry.

CREATE TABLE mailbox_webhooks (
    id                TEXT PRIMARY KEY,          -- UUID
    owner_id          TEXT NOT NULL UNIQUE REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,  -- one per user
    url               TEXT NOT NULL,
    events            TEXT NOT NULL,             -- comma-separated event types ('email.received')
    secret            TEXT NOT NULL,             -- whsec_..., the HMAC key exactly as shown to the user
    status            TEXT NOT NULL DEFAULT 'active',   -- 'active' or 'failed' (after an event's last retry)
    failure_count     INTEGER NOT NULL DEFAULT 0,       -- consecutive failed attempts; a 2xx or a rotation resets it
    last_triggered_at INTEGER,                   -- Unix seconds of the last attempt
    created_at        INTEGER NOT NULL
) STRICT;

CREATE TABLE mailbox_webhook_events (
    id              TEXT PRIMARY KEY,            -- evt_<message id>: the X-Webhook-ID and the payload's id
    webhook_id      TEXT NOT NULL REFERENCES mailbox_webhooks(id) ON DELETE CASCADE,
    event_type      TEXT NOT NULL,
    message_id      TEXT NOT NULL,
    address         TEXT NOT NULL,
    account_id      TEXT,                        -- NULL for catch-all mail on a verified domain without an account
    from_json       TEXT NOT NULL,
    envelope_from   TEXT NOT NULL,
    subject         TEXT,
    preview         TEXT NOT NULL,
    size            INTEGER NOT NULL,
    received_at     INTEGER NOT NULL,            -- Unix seconds
    attempts        INTEGER NOT NULL DEFAULT 0,  -- attempts made so far
    next_attempt_ms INTEGER NOT NULL,            -- Unix milliseconds when the next attempt is due
    lease_until_ms  INTEGER NOT NULL DEFAULT 0,  -- an instance holds the row until then
    lease_token     TEXT                         -- which claim holds it
) STRICT;

CREATE INDEX mailbox_webhook_events_due ON mailbox_webhook_events (next_attempt_ms);

CREATE TABLE mailbox_webhook_deliveries (
    id          TEXT PRIMARY KEY,                -- UUID of the attempt
    webhook_id  TEXT NOT NULL REFERENCES mailbox_webhooks(id) ON DELETE CASCADE,
    event_id    TEXT NOT NULL,
    event_type  TEXT NOT NULL,
    attempt     INTEGER NOT NULL,                -- 1-based
    status_code INTEGER,                         -- NULL on a network error or timeout
    error       TEXT,
    duration_ms INTEGER,
    created_ms  INTEGER NOT NULL                 -- Unix milliseconds; the log keeps the newest 20 per webhook
) STRICT;

CREATE INDEX mailbox_webhook_deliveries_by_webhook ON mailbox_webhook_deliveries (webhook_id, created_ms);

-- Every message stored in an inbox the Pro user owns (an account of theirs, or any address on their verified
-- domain) queues one event for their active webhook.
CREATE TRIGGER mailbox_webhook_enqueue AFTER INSERT ON mail_messages WHEN NEW.folder = 'inbox'
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
            WHERE d.domain = substr(NEW.address, instr(NEW.address, '@') + 1) AND d.verified_at IS NOT NULL));
END;
