-- As migrations/sqlite/0064_mail_recent_uids.sql: per mailbox, the highest UID a session has been told is \Recent
-- (issue 70). A claim reads and raises it in one SERIALIZABLE transaction, so of two sessions (on one instance or two)
-- selecting the mailbox at once, one fails to serialize, is tried again and finds the UIDs taken. Expand-only: a new
-- table; the release before never reads it, and a mailbox it numbers later has no row here (0: nothing told yet).
CREATE TABLE mail_recent_uids (
    address    TEXT   NOT NULL,
    folder     TEXT   NOT NULL,
    recent_uid BIGINT NOT NULL,                 -- the highest UID a session was told is recent
    PRIMARY KEY (address, folder)
);

INSERT INTO mail_recent_uids (address, folder, recent_uid)
    SELECT address, folder, uid_next - 1 FROM mail_uid_mailboxes;
