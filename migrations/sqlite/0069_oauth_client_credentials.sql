-- As migrations/postgres/0069_oauth_client_credentials.sql (issue 86 items 2, 4, 5): confidential clients the
-- operator makes (`postern oauth client create`) for the client credentials grant and for introspection, their
-- grants, and the assertion ids (RFC 7523 `jti`) seen until they expire. Secrets are stored only as SHA-256 digests;
-- a rotated secret keeps working until previous_secret_until.
CREATE TABLE oauth_confidential_clients (
    client_id              TEXT    PRIMARY KEY NOT NULL,
    client_name            TEXT    NOT NULL,
    auth_method            TEXT    NOT NULL
        CHECK (auth_method IN ('client_secret_basic', 'client_secret_post', 'private_key_jwt')),
    secret_digest          BLOB    CHECK (secret_digest IS NULL OR length(secret_digest) = 32),
    previous_secret_digest BLOB    CHECK (previous_secret_digest IS NULL OR length(previous_secret_digest) = 32),
    previous_secret_until  INTEGER,                                       -- Unix seconds
    jwks                   TEXT,                                          -- private_key_jwt: the keys, a JWKS
    jwks_uri               TEXT,                                          -- private_key_jwt: where they are fetched
    scope                  TEXT    NOT NULL,                              -- the widest scope its tokens may carry
    introspection          INTEGER NOT NULL DEFAULT 0,                    -- 1: may call /oauth/introspect
    owner_id               TEXT    REFERENCES owners(id) ON DELETE CASCADE, -- NULL: made by the operator
    created_at             INTEGER NOT NULL
) STRICT;

-- The inboxes a confidential client's tokens reach.
CREATE TABLE oauth_confidential_client_inboxes (
    client_id TEXT NOT NULL REFERENCES oauth_confidential_clients(client_id) ON DELETE CASCADE,
    agent_id  TEXT NOT NULL REFERENCES agent_accounts(id) ON DELETE CASCADE,
    PRIMARY KEY (client_id, agent_id)
) STRICT;

-- One row per client credentials grant: its one access token (no refresh token), whose `jti` is the grant's id.
CREATE TABLE oauth_client_grants (
    id         TEXT    PRIMARY KEY NOT NULL,
    client_id  TEXT    NOT NULL REFERENCES oauth_confidential_clients(client_id) ON DELETE CASCADE,
    scope      TEXT    NOT NULL,
    resource   TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER
) STRICT;
CREATE INDEX oauth_client_grants_by_client ON oauth_client_grants (client_id, expires_at);
CREATE INDEX oauth_client_grants_by_expiry ON oauth_client_grants (expires_at);

-- Client assertions (private_key_jwt) seen, kept until they expire: a second use of one `jti` is refused on every
-- instance (the primary key decides a race).
CREATE TABLE oauth_assertion_jtis (
    client_id  TEXT    NOT NULL,
    jti        TEXT    NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (client_id, jti)
) STRICT;
CREATE INDEX oauth_assertion_jtis_by_expiry ON oauth_assertion_jtis (expires_at);
