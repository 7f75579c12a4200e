-- A sandbox capture is a webhook event too (as migrations/sqlite/0023_sandbox_webhooks.sql): the message stored
-- under the sandbox's address queues one event for its Pro user's active webhook, with the sandbox's account id.
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
        (SELECT d.owner_id FROM mailbox_pro_domains d
            WHERE d.domain = split_part(NEW.address, '@', 2) AND d.verified_at IS NOT NULL));
    RETURN NULL;
END
$$;
