-- As migrations/sqlite/0070_app_passwords.sql (issue 87 item 2): app passwords, each opening one inbox of its holder
-- at the mail doors it names; only the secret's SHA-256 digest is stored; revoking deletes the row.
CREATE TABLE app_passwords (
    id           TEXT    PRIMARY KEY NOT NULL,
    owner_id     TEXT    REFERENCES owners(id) ON DELETE CASCADE,
    pro_user_id  TEXT    REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,
    account_id   TEXT    NOT NULL,                       -- the inbox it opens: an agent's or a Mail.td account's id
    address      TEXT    NOT NULL,                       -- that inbox's address, the user name it goes with
    name         TEXT    NOT NULL,
    doors        BIGINT  NOT NULL CHECK (doors BETWEEN 1 AND 7),
    digest       BYTEA   NOT NULL UNIQUE CHECK (octet_length(digest) = 32),
    created_at   BIGINT  NOT NULL,                       -- Unix seconds
    last_used_at BIGINT,                                 -- Unix seconds, to the minute
    CHECK ((owner_id IS NULL) <> (pro_user_id IS NULL))
);

CREATE INDEX app_passwords_owner ON app_passwords (owner_id);
CREATE INDEX app_passwords_pro_user ON app_passwords (pro_user_id);
