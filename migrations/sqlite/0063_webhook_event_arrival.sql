-- The arrival order of an event's message (mail_messages.received_seq, migration 0028), kept with the event when the
-- delivery's transaction queues it, so that the webhook queue's claim orders events due together as their messages
-- arrived without splicing a read of the mail tables into its statement (issue 67). Events queued before take their
-- message's; one whose message is gone keeps NULL.
ALTER TABLE mailbox_webhook_events ADD COLUMN received_seq INTEGER;
UPDATE mailbox_webhook_events
    SET received_seq = (SELECT m.received_seq FROM mail_messages m WHERE m.id = mailbox_webhook_events.message_id);
