-- Mail.td's v2 protocol (as migrations/sqlite/0005_mailbox_auth_key.sql): the account keeps SHA-256(auth_key).
ALTER TABLE mailbox_accounts ADD COLUMN auth_verifier BYTEA;
