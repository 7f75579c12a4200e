-- Deleting a mailbox account deleted its messages, but the change-log rows those deletions wrote (and the earlier
-- ones, up to POSTERN_MAIL_CHANGES_KEPT) and its mail_state row stayed for good: with accounts created and deleted
-- all day, the log grew without bound. They go with the account now, in the same transaction. Nobody can ask for
-- that address's changes any more (its tokens went with it); a new account at the address starts from state 0.
-- Rows left by deletions before this migration stay: SQL cannot tell them from an agent inbox that is empty now.
DROP TRIGGER mailbox_account_mail_deleted;

CREATE TRIGGER mailbox_account_mail_deleted AFTER DELETE ON mailbox_accounts
BEGIN
    DELETE FROM mail_messages WHERE address = OLD.address;
    DELETE FROM mail_changes WHERE address = OLD.address;
    DELETE FROM mail_state WHERE address = OLD.address;
END;
