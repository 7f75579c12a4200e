-- Secrets every instance of one deployment must share, created once by whichever instance needs them first
-- (INSERT ... ON CONFLICT DO NOTHING, then read back): for now the key of the remote-hash pages' signed cookies.
CREATE TABLE server_secrets (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
) STRICT;
