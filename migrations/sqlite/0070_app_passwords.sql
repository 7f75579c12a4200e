-- As migrations/postgres/0070_app_passwords.sql (issue 87 item 2): app passwords, each made by an owner (for an agent
-- inbox they hold) or a Pro user (for one of their Mail.td accounts), opening that one inbox at the mail doors it names
-- (bits: 1 IMAP, 2 POP3, 4 submission). Only the SHA-256 digest of the random secret is stored; revoking deletes the
-- row. last_used_at is written at most once a minute.
CREATE TABLE app_passwords (
    id           TEXT    PRIMARY KEY NOT NULL,
    owner_id     TEXT    REFERENCES owners(id) ON DELETE CASCADE,
    pro_user_id  TEXT    REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,
    account_id   TEXT    NOT NULL,                       -- the inbox it opens: an agent's or a Mail.td account's id
    address      TEXT    NOT NULL,                       -- that inbox's address, the user name it goes with
    name         TEXT    NOT NULL,
    doors        INTEGER NOT NULL CHECK (doors BETWEEN 1 AND 7),
    digest       BLOB    NOT NULL UNIQUE CHECK (length(digest) = 32),
    created_at   INTEGER NOT NULL,                       -- Unix seconds
    last_used_at INTEGER,                                -- Unix seconds, to the minute
    CHECK ((owner_id IS NULL) <> (pro_user_id IS NULL))
) STRICT;

CREATE INDEX app_passwords_owner ON app_passwords (owner_id);
CREATE INDEX app_passwords_pro_user ON app_passwords (pro_user_id);
