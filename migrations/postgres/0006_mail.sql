-- The local mail store (as migrations/sqlite/0006_mail.sql): every message a local address received, its raw
-- RFC 5322 bytes beside the parsed fields the APIs read. Times are Unix seconds.

CREATE TABLE mail_messages (
    id            TEXT   PRIMARY KEY,            -- UUID
    address       TEXT   NOT NULL,               -- the local mailbox, lower-cased local@domain
    folder        TEXT   NOT NULL,               -- 'inbox' or 'sent'
    envelope_from TEXT   NOT NULL,               -- SMTP MAIL FROM (may be empty: the null sender)
    from_json     TEXT   NOT NULL,               -- JSON [{"name","email"}] of each header below
    to_json       TEXT   NOT NULL,
    cc_json       TEXT   NOT NULL,
    reply_to_json TEXT   NOT NULL,
    subject       TEXT,
    message_id    TEXT,                          -- without angle brackets
    in_reply_to   TEXT   NOT NULL,               -- JSON array of message ids
    refs          TEXT   NOT NULL,               -- JSON array of message ids (References)
    sent_at       BIGINT,                        -- the Date header, NULL when absent or unreadable
    text_body     TEXT,
    html_body     TEXT,
    preview       TEXT   NOT NULL,               -- at most 256 characters
    size          BIGINT NOT NULL,               -- bytes of raw
    is_read       BIGINT NOT NULL DEFAULT 0,
    received_at   BIGINT NOT NULL,
    raw           BYTEA  NOT NULL
);

CREATE INDEX mail_messages_by_address ON mail_messages (address, folder, received_at, id);

CREATE TABLE mail_attachments (
    message_id   TEXT   NOT NULL REFERENCES mail_messages(id) ON DELETE CASCADE,
    position     BIGINT NOT NULL,                -- zero-based, in the order of the message
    filename     TEXT,
    content_type TEXT   NOT NULL,
    content_id   TEXT,
    disposition  TEXT,
    size         BIGINT NOT NULL,
    data         BYTEA  NOT NULL,                -- decoded bytes
    PRIMARY KEY (message_id, position)
);

-- Deleting an account deletes its mail.
CREATE FUNCTION mailbox_account_mail_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM mail_messages WHERE address = OLD.address;
    RETURN NULL;
END
$$;

CREATE TRIGGER mailbox_account_mail_deleted AFTER DELETE ON mailbox_accounts
    FOR EACH ROW EXECUTE FUNCTION mailbox_account_mail_deleted();
