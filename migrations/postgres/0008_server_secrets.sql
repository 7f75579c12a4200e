-- Secrets every instance of one deployment must share (as migrations/sqlite/0008_server_secrets.sql), created once
-- by whichever instance needs them first: for now the key of the remote-hash pages' signed cookies.
CREATE TABLE server_secrets (
    name  TEXT  PRIMARY KEY,
    value BYTEA NOT NULL
);
