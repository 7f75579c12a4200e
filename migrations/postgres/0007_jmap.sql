-- What JMAP needs beyond Mail.td's view of the store (as migrations/sqlite/0007_jmap.sql): keywords and threads on
-- messages, a state per address that every change moves, uploaded blobs, and the outbox for foreign domains.

-- JSON object of the message's keywords other than $seen (which is_read holds), e.g. {"$draft":true}.
ALTER TABLE mail_messages ADD COLUMN keywords TEXT NOT NULL DEFAULT '{}';
-- JSON [{"name","email"}] of the Bcc a sender gave when it wrote the message here (JMAP); never in the raw bytes.
ALTER TABLE mail_messages ADD COLUMN bcc_json TEXT NOT NULL DEFAULT '[]';
-- The id of the first message of its conversation at this address (its own id when it starts one).
ALTER TABLE mail_messages ADD COLUMN thread_id TEXT;
UPDATE mail_messages SET thread_id = id WHERE thread_id IS NULL;

CREATE INDEX mail_messages_by_thread ON mail_messages (address, thread_id);
CREATE INDEX mail_messages_by_message_id ON mail_messages (address, message_id);
-- The quota check sums an address's sizes at every delivery: from this index alone, not the rows with their bodies.
CREATE INDEX mail_messages_size ON mail_messages (address, size);

-- JMAP state strings: a counter per address that moves with every insert, update and delete of its mail.
CREATE TABLE mail_state (
    address TEXT   PRIMARY KEY,
    state   BIGINT NOT NULL
);

CREATE FUNCTION mail_state_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO mail_state (address, state)
        VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.address ELSE NEW.address END, 1)
        ON CONFLICT (address) DO UPDATE SET state = mail_state.state + 1;
    RETURN NULL;
END
$$;

CREATE TRIGGER mail_state_change AFTER INSERT OR UPDATE OR DELETE ON mail_messages
    FOR EACH ROW EXECUTE FUNCTION mail_state_bump();

-- Blobs uploaded through JMAP (the upload URL or Blob/upload), owned by one address.
CREATE TABLE mail_blobs (
    id         TEXT   PRIMARY KEY,
    address    TEXT   NOT NULL,
    type       TEXT   NOT NULL,
    size       BIGINT NOT NULL,
    data       BYTEA  NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE INDEX mail_blobs_by_address ON mail_blobs (address, created_at);

-- Mail submitted for a domain this server does not serve: kept here for the operator (`postern mail outbox`),
-- never sent to the internet.
CREATE TABLE mail_outbox (
    id         TEXT   PRIMARY KEY,
    sender     TEXT   NOT NULL,                  -- the submitting address (envelope MAIL FROM)
    recipients TEXT   NOT NULL,                  -- JSON array of the foreign envelope recipients
    raw        BYTEA  NOT NULL,
    created_at BIGINT NOT NULL
);
