-- Mail.td Pro SMTP sandbox: one sandbox per Pro user, made on its first authenticated SMTP connection; the messages
-- it captures are kept in mail_messages under the sandbox's address (never relayed), and this table adds what the
-- sandbox shows beside them: the envelope recipients, the client's address and the authentication results.

CREATE TABLE mailbox_sandboxes (
    owner_id      TEXT PRIMARY KEY REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,
    account_id    TEXT NOT NULL UNIQUE,          -- UUID, shown as account_id
    address       TEXT NOT NULL UNIQUE,          -- sandbox-<first 8 hex of account_id>@sandbox.<first domain>
    created_at    INTEGER NOT NULL
) STRICT;

CREATE TABLE mailbox_sandbox_messages (
    message_id    TEXT PRIMARY KEY,              -- the mail_messages id of the captured copy
    owner_id      TEXT NOT NULL REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,
    recipients    TEXT NOT NULL,                 -- JSON array of the RCPT TO addresses, in order
    client_ip     TEXT NOT NULL,
    auth_results  TEXT,                          -- JSON {"spf","dkim","dmarc",...}; NULL when not evaluated
    created_at    INTEGER NOT NULL
) STRICT;

CREATE INDEX mailbox_sandbox_messages_by_owner ON mailbox_sandbox_messages (owner_id, created_at);
