-- mail.cx's /api/ws (issue 55): the sockets open per Mail.td account, counted across instances (at most 3 each). A row
-- lives while its socket does: its instance pushes expires_at on while the socket is open and deletes the row when it
-- closes; a row left by an instance that died stops counting at expires_at.
CREATE TABLE mailbox_sockets (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX mailbox_sockets_account ON mailbox_sockets (account_id, expires_at);
