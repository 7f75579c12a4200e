-- The change stream (as migrations/sqlite/0015_mail_changes.sql): every insert, update and delete of a message
-- advances its address's state by one and writes one row of the change log with that state, in the same transaction
-- (this trigger), and notifies `postern_mail` with the address when it commits, so that other instances' waiters
-- wake. The log is trimmed periodically (MailStore.trimChanges); `floor` is the oldest state changes can still be
-- calculated from.

-- States issued before this migration have no log rows: none of them can be answered, so the floor starts at them.
ALTER TABLE mail_state ADD COLUMN floor BIGINT NOT NULL DEFAULT 0;
UPDATE mail_state SET floor = state;

CREATE TABLE mail_changes (
    address       TEXT   NOT NULL,
    seq           BIGINT NOT NULL,               -- the address's state this change produced
    message_id    TEXT   NOT NULL,
    thread_id     TEXT,                          -- the message's thread after the change (before it for a delete)
    kind          TEXT   NOT NULL,               -- 'created', 'updated' or 'destroyed'
    folder_before TEXT,                          -- NULL for 'created'
    folder_after  TEXT,                          -- NULL for 'destroyed'
    PRIMARY KEY (address, seq)
);

CREATE OR REPLACE FUNCTION mail_state_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed TEXT := CASE WHEN TG_OP = 'DELETE' THEN OLD.address ELSE NEW.address END;
    next    BIGINT;
BEGIN
    INSERT INTO mail_state (address, state) VALUES (changed, 1)
        ON CONFLICT (address) DO UPDATE SET state = mail_state.state + 1
        RETURNING state INTO next;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO mail_changes VALUES (changed, next, NEW.id, NEW.thread_id, 'created', NULL, NEW.folder);
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO mail_changes VALUES (changed, next, NEW.id, NEW.thread_id, 'updated', OLD.folder, NEW.folder);
    ELSE
        INSERT INTO mail_changes VALUES (changed, next, OLD.id, OLD.thread_id, 'destroyed', OLD.folder, NULL);
    END IF;
    PERFORM pg_notify('postern_mail', changed);
    RETURN NULL;
END
$$;
