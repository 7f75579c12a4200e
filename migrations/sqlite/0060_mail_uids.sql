-- IMAP's and POP3's view of the one store (issue 70): each message has a UID in its mailbox (its address's folder)
-- that rises and never goes backwards, and each mailbox a UIDVALIDITY, kept here so that they survive restarts,
-- backup and restore, and failover. Assigned by these triggers in the transaction that stores or moves the message,
-- whatever door (SMTP, JMAP, the Mail.td API, IMAP itself, the previous release during a rolling upgrade) writes it.
-- Expand-only: two new tables, nothing of mail_messages changed.

CREATE TABLE mail_uid_mailboxes (
    address      TEXT NOT NULL,
    folder       TEXT NOT NULL,
    uid_validity INTEGER NOT NULL,              -- Unix seconds when the mailbox was first numbered
    uid_next     INTEGER NOT NULL,              -- the UID the next message in it takes
    PRIMARY KEY (address, folder)
) STRICT;

CREATE TABLE mail_uids (
    message_id TEXT PRIMARY KEY REFERENCES mail_messages(id) ON DELETE CASCADE,
    address    TEXT NOT NULL,
    folder     TEXT NOT NULL,
    uid        INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX mail_uids_by_mailbox ON mail_uids (address, folder, uid);

-- The messages already stored, numbered in arrival order per mailbox.
INSERT INTO mail_uids (message_id, address, folder, uid)
    SELECT id, address, folder,
        row_number() OVER (PARTITION BY address, folder ORDER BY received_at, received_seq)
        FROM mail_messages;
INSERT INTO mail_uid_mailboxes (address, folder, uid_validity, uid_next)
    SELECT address, folder, CAST(strftime('%s', 'now') AS INTEGER), MAX(uid) + 1 FROM mail_uids GROUP BY address, folder;

-- SQLite has one writer at a time: the order UIDs are taken in is the order they commit in.
CREATE TRIGGER mail_uids_insert AFTER INSERT ON mail_messages
BEGIN
    INSERT INTO mail_uid_mailboxes (address, folder, uid_validity, uid_next)
        VALUES (NEW.address, NEW.folder, CAST(strftime('%s', 'now') AS INTEGER), 2)
        ON CONFLICT (address, folder) DO UPDATE SET uid_next = uid_next + 1;
    INSERT INTO mail_uids (message_id, address, folder, uid)
        SELECT NEW.id, NEW.address, NEW.folder, uid_next - 1 FROM mail_uid_mailboxes
            WHERE address = NEW.address AND folder = NEW.folder;
END;

-- A message moved to another folder is a new message there, with that mailbox's next UID.
CREATE TRIGGER mail_uids_move AFTER UPDATE OF folder ON mail_messages WHEN NEW.folder IS NOT OLD.folder
BEGIN
    INSERT INTO mail_uid_mailboxes (address, folder, uid_validity, uid_next)
        VALUES (NEW.address, NEW.folder, CAST(strftime('%s', 'now') AS INTEGER), 2)
        ON CONFLICT (address, folder) DO UPDATE SET uid_next = uid_next + 1;
    UPDATE mail_uids SET folder = NEW.folder,
        uid = (SELECT uid_next - 1 FROM mail_uid_mailboxes WHERE address = NEW.address AND folder = NEW.folder)
        WHERE message_id = NEW.id;
END;
