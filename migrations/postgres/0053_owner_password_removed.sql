-- An owner who holds a passkey may remove their password (issue 56; Sources/Owners; as
-- migrations/sqlite/0053_owner_password_removed.sql): then they sign in with passkeys only, until the operator sets a
-- password again (`postern owner set-password`). NULL: the owner has a password. Set, `password_hash` is emptied (the
-- old hash is not kept) and no password signs them in.
ALTER TABLE owners ADD COLUMN password_removed_at BIGINT;  -- Unix seconds
