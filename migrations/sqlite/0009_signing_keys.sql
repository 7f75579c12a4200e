-- Signing keys kept in the database (as migrations/postgres/0009_signing_keys.sql), so that every instance on one
-- database signs and verifies with the same keys. Used when the database is PostgreSQL; on SQLite the keys stay in
-- the data directory's keys/ and this table stays empty. The key material is sealed with AES-256-GCM under a key
-- derived from the operator's POSTERN_KEY_SECRET; kid, kind and times are plain. A key is published (verifies, is
-- in the JWKS) from created_at and signs from signs_from; it retires when the next key of its kind starts signing.
-- generation numbers the keys in the order they were made: times are in seconds, and a rotation can fall in the
-- second its predecessor was made.
CREATE TABLE signing_keys (
    kid        TEXT    PRIMARY KEY,
    kind       TEXT    NOT NULL CHECK (kind IN ('rsa', 'hmac')),
    created_at INTEGER NOT NULL,
    signs_from INTEGER NOT NULL,
    generation INTEGER NOT NULL UNIQUE,
    sealed     BLOB    NOT NULL
) STRICT;
