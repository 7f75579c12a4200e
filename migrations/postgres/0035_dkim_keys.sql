-- DKIM signing keys, per domain (as migrations/sqlite/0035_dkim_keys.sql): an RSA-2048 and an Ed25519 key
-- (RFC 8463) each, made when the domain first needs them (Sources/DKIMKeys). A rotation retires the domain's keys
-- (retired_at) and adds new ones under new selectors; retired rows stay so the operator can see which DNS records may
-- go. The private key is sealed with AES-256-GCM under POSTERN_KEY_SECRET, as signing_keys are.
CREATE TABLE dkim_keys (
    domain      TEXT   NOT NULL,
    selector    TEXT   NOT NULL,
    algorithm   TEXT   NOT NULL CHECK (algorithm IN ('rsa-sha256', 'ed25519-sha256')),
    created_at  BIGINT NOT NULL,
    retired_at  BIGINT,
    private_key BYTEA  NOT NULL,
    PRIMARY KEY (domain, selector)
);
-- One signing key per domain and algorithm.
CREATE UNIQUE INDEX dkim_keys_active ON dkim_keys (domain, algorithm) WHERE retired_at IS NULL;
