-- Folders a person makes (issue 87, decision 35): each address's own folders beside the six every address has
-- (inbox, drafts, sent, trash, junk, archive, which have no rows). A message names its folder by the folder's key
-- (mail_messages.folder), which never changes: a rename changes a row here, never a message. `parent_id` is another
-- folder's key (one of the six or a row here) or '' at the top; a name holds no '/' (the hierarchy delimiter) and is
-- unique among its siblings. Subscriptions are names, as IMAP keeps them: one outlives its folder (RFC 5258's
-- \NonExistent). Each creation, rename and deletion of a folder advances the address's state and writes a row of the
-- change log, as a message's change does (0015), so that JMAP's Mailbox/changes and waiters hear of it.
-- Expand-only: two new tables and their triggers.

CREATE TABLE mail_folders (
    address    TEXT NOT NULL,
    id         TEXT NOT NULL,                  -- the key mail_messages.folder holds
    name       TEXT NOT NULL,                  -- the last component of its path, UTF-8, no '/'
    parent_id  TEXT NOT NULL DEFAULT '',       -- the parent folder's key, '' at the top
    created_at INTEGER NOT NULL,
    PRIMARY KEY (address, id)
) STRICT;
CREATE UNIQUE INDEX mail_folders_by_name ON mail_folders (address, parent_id, name);

CREATE TABLE mail_folder_subscriptions (
    address TEXT NOT NULL,
    name    TEXT NOT NULL,                      -- the full path, '/'-separated, UTF-8
    PRIMARY KEY (address, name)
) STRICT;

CREATE TRIGGER mail_folders_insert AFTER INSERT ON mail_folders
BEGIN
    INSERT INTO mail_state (address, state) VALUES (NEW.address, 1)
        ON CONFLICT (address) DO UPDATE SET state = state + 1;
    INSERT INTO mail_changes (address, seq, message_id, thread_id, kind, folder_before, folder_after)
        SELECT NEW.address, state, NEW.id, NULL, 'mailbox-created', NULL, NEW.id FROM mail_state
            WHERE address = NEW.address;
END;

CREATE TRIGGER mail_folders_update AFTER UPDATE OF name, parent_id ON mail_folders
BEGIN
    INSERT INTO mail_state (address, state) VALUES (NEW.address, 1)
        ON CONFLICT (address) DO UPDATE SET state = state + 1;
    INSERT INTO mail_changes (address, seq, message_id, thread_id, kind, folder_before, folder_after)
        SELECT NEW.address, state, NEW.id, NULL, 'mailbox-updated', OLD.id, NEW.id FROM mail_state
            WHERE address = NEW.address;
END;

CREATE TRIGGER mail_folders_delete AFTER DELETE ON mail_folders
BEGIN
    INSERT INTO mail_state (address, state) VALUES (OLD.address, 1)
        ON CONFLICT (address) DO UPDATE SET state = state + 1;
    INSERT INTO mail_changes (address, seq, message_id, thread_id, kind, folder_before, folder_after)
        SELECT OLD.address, state, OLD.id, NULL, 'mailbox-destroyed', OLD.id, NULL FROM mail_state
            WHERE address = OLD.address;
END;

-- An account's folders and subscriptions go with it, and the log rows and state their deletion wrote (as 0022 does
-- for its messages' deletions).
CREATE TRIGGER mailbox_account_folders_deleted AFTER DELETE ON mailbox_accounts
BEGIN
    DELETE FROM mail_folders WHERE address = OLD.address;
    DELETE FROM mail_folder_subscriptions WHERE address = OLD.address;
    DELETE FROM mail_changes WHERE address = OLD.address;
    DELETE FROM mail_state WHERE address = OLD.address;
END;
