-- A sandbox record (mailbox_sandbox_messages, 0019) follows its message (issue 82): deleting a message from
-- mail_messages, by any door (Mailpit's deletes, the operator's, the sandbox's own) or by retention, deletes what the
-- sandbox kept beside it. A trigger rather than a foreign key: SQLite adds a key only by rebuilding the table, and on
-- PostgreSQL (as there) the trigger is an expansion (decision 32). The records whose message is already gone go now.

DELETE FROM mailbox_sandbox_messages WHERE message_id NOT IN (SELECT id FROM mail_messages);

CREATE TRIGGER mailbox_sandbox_messages_follow AFTER DELETE ON mail_messages
BEGIN
    DELETE FROM mailbox_sandbox_messages WHERE message_id = OLD.id;
END;
