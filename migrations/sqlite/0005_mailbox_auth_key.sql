-- Mail.td's v2 protocol: accounts are proven by auth_key = Argon2id(password, SHA-256(address), t=3, m=16 MiB, p=1),
-- which a v2 client derives itself and the server derives from a v1 password. The account keeps SHA-256(auth_key).
-- Rows made before this migration keep their Argon2id password hash (auth_verifier NULL) until the first v1 sign-in
-- or reset replaces it; an account with a verifier has password_hash ''.
ALTER TABLE mailbox_accounts ADD COLUMN auth_verifier BLOB;
