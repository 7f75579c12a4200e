-- As migrations/sqlite/0067_sandbox_records_follow_messages.sql: a sandbox record follows its message, whoever
-- deletes it. Expand-only (decision 32): a new function and trigger, and a backfill deleting the records whose message
-- is already gone. A foreign key would be a constraint the previous release's rows might not meet (it writes no
-- record before its message, but orphans it left stand until this backfill); the trigger fires for its deletes too
-- once this release has migrated, which is what it lacked.

DELETE FROM mailbox_sandbox_messages s WHERE NOT EXISTS (SELECT 1 FROM mail_messages m WHERE m.id = s.message_id);

CREATE FUNCTION mailbox_sandbox_messages_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM mailbox_sandbox_messages WHERE message_id = OLD.id;
    RETURN NULL;
END;
$$;

CREATE TRIGGER mailbox_sandbox_messages_follow AFTER DELETE ON mail_messages
    FOR EACH ROW EXECUTE FUNCTION mailbox_sandbox_messages_follow();
