-- The change stream (issue 30): every insert, update and delete of a message advances its address's state by one and
-- writes one row of the change log with that state, in the same transaction (these triggers), so that JMAP's
-- */changes can say what changed since a state and waiters can wake. The log is trimmed periodically
-- (MailStore.trimChanges); `floor` is the oldest state changes can still be calculated from.

-- States issued before this migration have no log rows: none of them can be answered, so the floor starts at them.
ALTER TABLE mail_state ADD COLUMN floor INTEGER NOT NULL DEFAULT 0;
UPDATE mail_state SET floor = state;

CREATE TABLE mail_changes (
    address       TEXT NOT NULL,
    seq           INTEGER NOT NULL,              -- the address's state this change produced
    message_id    TEXT NOT NULL,
    thread_id     TEXT,                          -- the message's thread after the change (before it for a delete)
    kind          TEXT NOT NULL,                 -- 'created', 'updated' or 'destroyed'
    folder_before TEXT,                          -- NULL for 'created'
    folder_after  TEXT,                          -- NULL for 'destroyed'
    PRIMARY KEY (address, seq)
) STRICT;

DROP TRIGGER mail_state_insert;
DROP TRIGGER mail_state_update;
DROP TRIGGER mail_state_delete;

CREATE TRIGGER mail_state_insert AFTER INSERT ON mail_messages
BEGIN
    INSERT INTO mail_state (address, state) VALUES (NEW.address, 1)
        ON CONFLICT (address) DO UPDATE SET state = state + 1;
    INSERT INTO mail_changes (address, seq, message_id, thread_id, kind, folder_before, folder_after)
        SELECT NEW.address, state, NEW.id, NEW.thread_id, 'created', NULL, NEW.folder FROM mail_state
            WHERE address = NEW.address;
END;

CREATE TRIGGER mail_state_update AFTER UPDATE ON mail_messages
BEGIN
    INSERT INTO mail_state (address, state) VALUES (NEW.address, 1)
        ON CONFLICT (address) DO UPDATE SET state = state + 1;
    INSERT INTO mail_changes (address, seq, message_id, thread_id, kind, folder_before, folder_after)
        SELECT NEW.address, state, NEW.id, NEW.thread_id, 'updated', OLD.folder, NEW.folder FROM mail_state
            WHERE address = NEW.address;
END;

CREATE TRIGGER mail_state_delete AFTER DELETE ON mail_messages
BEGIN
    INSERT INTO mail_state (address, state) VALUES (OLD.address, 1)
        ON CONFLICT (address) DO UPDATE SET state = state + 1;
    INSERT INTO mail_changes (address, seq, message_id, thread_id, kind, folder_before, folder_after)
        SELECT OLD.address, state, OLD.id, OLD.thread_id, 'destroyed', OLD.folder, NULL FROM mail_state
            WHERE address = OLD.address;
END;
