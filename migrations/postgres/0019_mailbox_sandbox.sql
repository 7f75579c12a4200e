-- Mail.td Pro SMTP sandbox, as migrations/sqlite/0019_mailbox_sandbox.sql.

CREATE TABLE mailbox_sandboxes (
    owner_id      TEXT    PRIMARY KEY REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,
    account_id    TEXT    NOT NULL UNIQUE,
    address       TEXT    NOT NULL UNIQUE,
    created_at    BIGINT  NOT NULL
);

CREATE TABLE mailbox_sandbox_messages (
    message_id    TEXT    PRIMARY KEY,
    owner_id      TEXT    NOT NULL REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,
    recipients    TEXT    NOT NULL,
    client_ip     TEXT    NOT NULL,
    auth_results  TEXT,
    created_at    BIGINT  NOT NULL
);

CREATE INDEX mailbox_sandbox_messages_by_owner ON mailbox_sandbox_messages (owner_id, created_at);
