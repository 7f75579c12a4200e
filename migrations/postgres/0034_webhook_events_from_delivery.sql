-- Webhook events are queued by the delivery itself (as migrations/sqlite/0034_webhook_events_from_delivery.sql): the
-- trigger of 0018 (its function remade by 0023) and its function go.
DROP TRIGGER IF EXISTS mailbox_webhook_enqueue ON mail_messages;
DROP FUNCTION IF EXISTS mailbox_webhook_enqueue();
