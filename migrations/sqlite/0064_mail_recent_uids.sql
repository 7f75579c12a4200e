-- IMAP4rev1's \Recent (RFC 3501 §2.3.2, issue 70): a message is recent in exactly one session, the first to select
-- its mailbox read-write after it arrived. Each mailbox keeps the highest UID some session has been told is recent
-- (Dovecot's approach); a SELECT claims the UIDs above it in one transaction, so two sessions never both see one
-- message as recent. A table of its own rather than a column of mail_uid_mailboxes, whose row every delivery updates:
-- a claim never waits on a delivery, nor a delivery on a claim. A mailbox with no row has told no session (0).
-- Expand-only: a new table.
CREATE TABLE mail_recent_uids (
    address    TEXT NOT NULL,
    folder     TEXT NOT NULL,
    recent_uid INTEGER NOT NULL,                -- the highest UID a session was told is recent
    PRIMARY KEY (address, folder)
) STRICT;

-- The messages already stored are not recent: sessions of the release before were told of them (as EXISTS), and a
-- first SELECT after the upgrade calling a whole mailbox recent would tell a client nothing.
INSERT INTO mail_recent_uids (address, folder, recent_uid)
    SELECT address, folder, uid_next - 1 FROM mail_uid_mailboxes;
