-- Ed25519 signing keys (kind 'ed25519', PKCS#8 PEM sealed like the others) join the ring: they sign the OAuth access
-- tokens (EdDSA, RFC 9068). SQLite cannot change a CHECK constraint in place, so the table is rebuilt with the same
-- columns and rows (as migrations/postgres/0011_signing_keys_ed25519.sql, which alters the constraint).
CREATE TABLE signing_keys_0011 (
    kid        TEXT    PRIMARY KEY,
    kind       TEXT    NOT NULL CHECK (kind IN ('rsa', 'hmac', 'ed25519')),
    created_at INTEGER NOT NULL,
    signs_from INTEGER NOT NULL,
    generation INTEGER NOT NULL UNIQUE,
    sealed     BLOB    NOT NULL
) STRICT;
INSERT INTO signing_keys_0011 (kid, kind, created_at, signs_from, generation, sealed)
    SELECT kid, kind, created_at, signs_from, generation, sealed FROM signing_keys;
DROP TABLE signing_keys;
ALTER TABLE signing_keys_0011 RENAME TO signing_keys;
