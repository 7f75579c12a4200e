-- DKIM signing keys, per domain (as migrations/postgres/0035_dkim_keys.sql): an RSA-2048 and an Ed25519 key
-- (RFC 8463) each, made when the domain first needs them (Sources/DKIMKeys). A rotation retires the domain's keys
-- (retired_at) and adds new ones under new selectors; retired rows stay so the operator can see which DNS records may
-- go. On SQLite the private key is its PKCS#8 PEM, in the clear like the data directory's signing keys (the database
-- file is in that directory, mode 0600); on PostgreSQL it is sealed under POSTERN_KEY_SECRET as signing_keys are.
CREATE TABLE dkim_keys (
    domain      TEXT    NOT NULL,
    selector    TEXT    NOT NULL,
    algorithm   TEXT    NOT NULL CHECK (algorithm IN ('rsa-sha256', 'ed25519-sha256')),
    created_at  INTEGER NOT NULL,
    retired_at  INTEGER,
    private_key BLOB    NOT NULL,
    PRIMARY KEY (domain, selector)
) STRICT;
-- One signing key per domain and algorithm.
CREATE UNIQUE INDEX dkim_keys_active ON dkim_keys (domain, algorithm) WHERE retired_at IS NULL;
