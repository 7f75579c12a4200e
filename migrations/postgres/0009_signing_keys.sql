-- Signing keys every instance on this database signs and verifies with (as migrations/sqlite/0009_signing_keys.sql).
-- The key material is sealed with AES-256-GCM under a key derived from the operator's POSTERN_KEY_SECRET; kid, kind
-- and times are plain. A key is published (verifies, is in the JWKS) from created_at and signs from signs_from; it
-- retires when the next key of its kind starts signing. generation numbers the keys in the order they were made:
-- times are in seconds, and a rotation can fall in the second its predecessor was made.
CREATE TABLE signing_keys (
    kid        TEXT   PRIMARY KEY,
    kind       TEXT   NOT NULL CHECK (kind IN ('rsa', 'hmac')),
    created_at BIGINT NOT NULL,
    signs_from BIGINT NOT NULL,
    generation BIGINT NOT NULL UNIQUE,
    sealed     BYTEA  NOT NULL
);
