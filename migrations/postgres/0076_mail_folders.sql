-- As migrations/sqlite/0076_mail_folders.sql: folders a person makes (issue 87, decision 35), each address's own
-- folders beside the six every address has (inbox, drafts, sent, trash, junk, archive, which have no rows). A message
-- names its folder by the folder's key (mail_messages.folder), which never changes: a rename changes a row here, never
-- a message. `parent_id` is another folder's key or '' at the top; a name holds no '/' and is unique among its
-- siblings. Subscriptions are names, as IMAP keeps them. Each creation, rename and deletion of a folder advances the
-- address's state, writes a row of the change log and notifies `postern_mail`, as a message's change does (0015).
-- Expand-only: two new tables, a function and triggers. The release before reads a message in a person's folder as
-- one whose folder it does not know and leaves it out; it never writes a folder.

CREATE TABLE mail_folders (
    address    TEXT   NOT NULL,
    id         TEXT   NOT NULL,                -- the key mail_messages.folder holds
    name       TEXT   NOT NULL,                -- the last component of its path, UTF-8, no '/'
    parent_id  TEXT   NOT NULL DEFAULT '',     -- the parent folder's key, '' at the top
    created_at BIGINT NOT NULL,
    PRIMARY KEY (address, id)
);
CREATE UNIQUE INDEX mail_folders_by_name ON mail_folders (address, parent_id, name);

CREATE TABLE mail_folder_subscriptions (
    address TEXT NOT NULL,
    name    TEXT NOT NULL,                      -- the full path, '/'-separated, UTF-8
    PRIMARY KEY (address, name)
);

CREATE FUNCTION mail_folder_state_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed TEXT := CASE WHEN TG_OP = 'DELETE' THEN OLD.address ELSE NEW.address END;
    next    BIGINT;
BEGIN
    INSERT INTO mail_state (address, state) VALUES (changed, 1)
        ON CONFLICT (address) DO UPDATE SET state = mail_state.state + 1
        RETURNING state INTO next;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO mail_changes VALUES (changed, next, NEW.id, NULL, 'mailbox-created', NULL, NEW.id);
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO mail_changes VALUES (changed, next, NEW.id, NULL, 'mailbox-updated', OLD.id, NEW.id);
    ELSE
        INSERT INTO mail_changes VALUES (changed, next, OLD.id, NULL, 'mailbox-destroyed', OLD.id, NULL);
    END IF;
    PERFORM pg_notify('postern_mail', changed);
    RETURN NULL;
END
$$;

CREATE TRIGGER mail_folders_insert AFTER INSERT ON mail_folders
    FOR EACH ROW EXECUTE FUNCTION mail_folder_state_bump();
CREATE TRIGGER mail_folders_update AFTER UPDATE OF name, parent_id ON mail_folders
    FOR EACH ROW EXECUTE FUNCTION mail_folder_state_bump();
CREATE TRIGGER mail_folders_delete AFTER DELETE ON mail_folders
    FOR EACH ROW EXECUTE FUNCTION mail_folder_state_bump();

-- An account's folders and subscriptions go with it, and the log rows and state their deletion wrote (as 0022 does
-- for its messages' deletions).
CREATE FUNCTION mailbox_account_folders_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM mail_folders WHERE address = OLD.address;
    DELETE FROM mail_folder_subscriptions WHERE address = OLD.address;
    DELETE FROM mail_changes WHERE address = OLD.address;
    DELETE FROM mail_state WHERE address = OLD.address;
    RETURN NULL;
END
$$;
CREATE TRIGGER mailbox_account_folders_deleted AFTER DELETE ON mailbox_accounts
    FOR EACH ROW EXECUTE FUNCTION mailbox_account_folders_deleted();
