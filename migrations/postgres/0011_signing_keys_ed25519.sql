-- Ed25519 signing keys (kind 'ed25519', PKCS#8 PEM sealed like the others) join the ring: they sign the OAuth access
-- tokens (EdDSA, RFC 9068). The CHECK of 0009 (PostgreSQL's default name for it) is replaced by one that takes them
-- (as migrations/sqlite/0011_signing_keys_ed25519.sql, which rebuilds the table).
ALTER TABLE signing_keys DROP CONSTRAINT signing_keys_kind_check;
ALTER TABLE signing_keys ADD CONSTRAINT signing_keys_kind_check CHECK (kind IN ('rsa', 'hmac', 'ed25519'));
