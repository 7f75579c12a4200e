-- As migrations/sqlite/0060_mail_uids.sql: each message's UID in its mailbox (its address's folder), rising and never
-- going backwards, and each mailbox's UIDVALIDITY (issue 70). Concurrent deliveries commit out of order here, so the
-- UID is taken in the storing transaction from the mailbox's counter row, whose lock the transaction then holds until
-- it commits: a second delivery to the mailbox waits for the first to commit (or roll back) before it takes the next
-- UID, so commit order is UID order and a client that has seen UID n never later finds a smaller one. Deliveries to
-- different mailboxes do not wait on each other. Expand-only: two new tables, nothing of mail_messages changed.

CREATE TABLE mail_uid_mailboxes (
    address      TEXT   NOT NULL,
    folder       TEXT   NOT NULL,
    uid_validity BIGINT NOT NULL,               -- Unix seconds when the mailbox was first numbered
    uid_next     BIGINT NOT NULL,               -- the UID the next message in it takes
    PRIMARY KEY (address, folder)
);

CREATE TABLE mail_uids (
    message_id TEXT   PRIMARY KEY REFERENCES mail_messages(id) ON DELETE CASCADE,
    address    TEXT   NOT NULL,
    folder     TEXT   NOT NULL,
    uid        BIGINT NOT NULL
);
CREATE UNIQUE INDEX mail_uids_by_mailbox ON mail_uids (address, folder, uid);

INSERT INTO mail_uids (message_id, address, folder, uid)
    SELECT id, address, folder,
        row_number() OVER (PARTITION BY address, folder ORDER BY received_at, received_seq)
        FROM mail_messages;
INSERT INTO mail_uid_mailboxes (address, folder, uid_validity, uid_next)
    SELECT address, folder, EXTRACT(EPOCH FROM now())::BIGINT, MAX(uid) + 1 FROM mail_uids GROUP BY address, folder;

CREATE FUNCTION mail_uid_assign() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    assigned BIGINT;
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.folder IS NOT DISTINCT FROM OLD.folder THEN
        RETURN NULL;
    END IF;
    INSERT INTO mail_uid_mailboxes (address, folder, uid_validity, uid_next)
        VALUES (NEW.address, NEW.folder, EXTRACT(EPOCH FROM now())::BIGINT, 2)
        ON CONFLICT (address, folder) DO UPDATE SET uid_next = mail_uid_mailboxes.uid_next + 1
        RETURNING uid_next - 1 INTO assigned;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO mail_uids (message_id, address, folder, uid) VALUES (NEW.id, NEW.address, NEW.folder, assigned);
    ELSE
        UPDATE mail_uids SET folder = NEW.folder, uid = assigned WHERE message_id = NEW.id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER mail_uids_insert AFTER INSERT ON mail_messages FOR EACH ROW EXECUTE FUNCTION mail_uid_assign();
CREATE TRIGGER mail_uids_move AFTER UPDATE OF folder ON mail_messages FOR EACH ROW EXECUTE FUNCTION mail_uid_assign();
