-- Sign-in with identity providers (as migrations/sqlite/0048_signin_transactions.sql; issue 54;
-- Sources/SignInProviders): the login transactions between the redirect to a provider and its callback, in the
-- database so that any instance behind the balancer can answer the callback. The browser carries `state` (32 random
-- bytes, base64url) and a pre-session cookie; this table holds only their SHA-256 digests. Single use: the callback
-- deletes the row whatever it finds; short-lived (`expires_at`, ten minutes). Times are Unix seconds.
CREATE TABLE signin_transactions (
    state_digest   BYTEA   PRIMARY KEY NOT NULL CHECK (octet_length(state_digest) = 32),
    browser_digest BYTEA   NOT NULL CHECK (octet_length(browser_digest) = 32),  -- the browser that began it
    provider       TEXT    NOT NULL,                                            -- a name of POSTERN_OIDC_PROVIDERS
    surface        TEXT    NOT NULL CHECK (surface IN ('owners', 'pro')),
    account        TEXT,                  -- set when a signed-in person links the provider to this account
    nonce          TEXT    NOT NULL,      -- the id_token's nonce
    code_verifier  TEXT    NOT NULL,      -- PKCE (RFC 7636), sent only to the token endpoint
    return_to      TEXT    NOT NULL,      -- the local path to go back to
    created_at     BIGINT  NOT NULL,
    expires_at     BIGINT  NOT NULL
);
CREATE INDEX signin_transactions_by_expiry ON signin_transactions (expires_at);
