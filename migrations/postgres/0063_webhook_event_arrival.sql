-- As migrations/sqlite/0063_webhook_event_arrival.sql.
ALTER TABLE mailbox_webhook_events ADD COLUMN received_seq BIGINT;
UPDATE mailbox_webhook_events e SET received_seq = m.received_seq FROM mail_messages m WHERE m.id = e.message_id;
