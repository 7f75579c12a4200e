-- A mailbox's sortOrder (RFC 8621 §2), which a JMAP client may set (issue 87): kept on each folder a person made
-- (mail_folders, 0076), 100 when never set, as JMAP showed every made folder before; the six fixed folders have no row
-- and keep the server's order (1 to 6). A change of it is a change of the folder: the store sets it in a statement that
-- names `name` too (to itself), so 0076's mail_folders_update trigger advances the state and writes 'mailbox-updated'
-- to the change log, one row for one change. Expand-only: a column with a default.

ALTER TABLE mail_folders ADD COLUMN sort_order BIGINT NOT NULL DEFAULT 100;
