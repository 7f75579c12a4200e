-- As migrations/sqlite/0016_owners_oauth.sql, plus a notification when a grant is revoked, so that every instance
-- drops it from its liveness cache at once.

-- Owners (humans who own agent inboxes) and the OAuth 2.1 authorization server of issue 28
-- (../shared/api-docs/oauth-mcp-contract.md §1; decisions in docs/oauth-decisions.md). Secrets are stored only as
-- SHA-256 digests (session cookies, client secrets, codes, refresh tokens) or as Argon2id hashes (passwords).

-- A person who signs in with email and password.
CREATE TABLE owners (
    id            TEXT    PRIMARY KEY NOT NULL,                           -- lowercase UUID, the tokens' `sub`
    email         TEXT    NOT NULL UNIQUE,                                -- lower-cased
    password_hash TEXT    NOT NULL,                                       -- Argon2id, PHC string
    created_at    BIGINT  NOT NULL                                        -- Unix seconds
);

-- Failed sign-ins per email (known or not, so that backoff tells nothing about who exists): failures slow that
-- email only, never the client address. A success deletes the row; old rows are trimmed.
CREATE TABLE owner_signin_failures (
    email_digest  BYTEA   PRIMARY KEY NOT NULL CHECK (octet_length(email_digest) = 32), -- SHA-256 of the lower-cased email
    failures      BIGINT  NOT NULL,
    blocked_until BIGINT  NOT NULL,                                       -- Unix seconds
    updated_at    BIGINT  NOT NULL
);

-- Which owner an agent inbox belongs to: at most one owner per inbox (the primary key decides a race).
CREATE TABLE owner_inboxes (
    agent_id     TEXT    PRIMARY KEY NOT NULL REFERENCES agent_accounts(id) ON DELETE CASCADE,
    owner_id     TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    linked_at    BIGINT NOT NULL                                         -- Unix seconds
);
CREATE INDEX owner_inboxes_by_owner ON owner_inboxes (owner_id, linked_at);

-- Signed-in browser sessions of the owner pages; the cookie holds the token, this table its digest.
CREATE TABLE owner_sessions (
    token_digest BYTEA   PRIMARY KEY NOT NULL CHECK (octet_length(token_digest) = 32),
    owner_id     TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL
);
CREATE INDEX owner_sessions_by_owner ON owner_sessions (owner_id);

-- OAuth clients: registered (RFC 7591) or known by their metadata document (an https client_id, cached).
CREATE TABLE oauth_clients (
    client_id        TEXT    PRIMARY KEY NOT NULL,
    kind             TEXT    NOT NULL CHECK (kind IN ('registered', 'metadata_document')),
    auth_method      TEXT    NOT NULL CHECK (auth_method IN ('none', 'client_secret_post')),
    secret_digest    BYTEA,                                                -- NULL for public clients
    client_name      TEXT,
    redirect_uris    TEXT    NOT NULL,                                    -- JSON array of strings
    metadata         TEXT    NOT NULL,                                    -- the registration as echoed, JSON
    created_at       BIGINT NOT NULL,
    cached_until     BIGINT,                                             -- metadata documents: refetch after
    first_granted_at BIGINT                                              -- NULL: unused, expires after a day
);

-- What an owner approved for a client: scopes, the resource (audience), the default inbox.
CREATE TABLE oauth_grants (
    id         TEXT    PRIMARY KEY NOT NULL,                              -- lowercase UUID
    owner_id   TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    client_id  TEXT    NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
    agent_id   TEXT    REFERENCES agent_accounts(id) ON DELETE SET NULL,  -- the default inbox
    scope      TEXT    NOT NULL,                                          -- space-separated
    resource   TEXT    NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,                                          -- absolute cap of the rotation chain
    revoked_at BIGINT                                                    -- NULL while live
);
CREATE INDEX oauth_grants_by_owner ON oauth_grants (owner_id, created_at);

-- Authorization codes: single use, short-lived; a second use revokes the grant it issued.
CREATE TABLE oauth_codes (
    code_digest    BYTEA   PRIMARY KEY NOT NULL CHECK (octet_length(code_digest) = 32),
    grant_id       TEXT    NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
    redirect_uri   TEXT    NOT NULL,
    code_challenge TEXT    NOT NULL,                                      -- S256, base64url
    expires_at     BIGINT NOT NULL,
    used_at        BIGINT
);

-- Refresh tokens: one live per grant; a superseded one presented again is a reuse (docs/oauth-decisions.md 3).
CREATE TABLE oauth_refresh_tokens (
    token_digest  BYTEA   PRIMARY KEY NOT NULL CHECK (octet_length(token_digest) = 32),
    grant_id      TEXT    NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
    issued_at     BIGINT NOT NULL,
    expires_at    BIGINT NOT NULL,                                       -- sliding: 90 days from issue
    superseded_at BIGINT                                                 -- NULL while current
);
CREATE INDEX oauth_refresh_tokens_by_grant ON oauth_refresh_tokens (grant_id);

-- Access tokens issued (RFC 9068 `jti`): how a resource server finds the grant to check it is still live.
CREATE TABLE oauth_access_tokens (
    jti        TEXT    PRIMARY KEY NOT NULL,
    grant_id   TEXT    NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
    expires_at BIGINT NOT NULL
);
CREATE INDEX oauth_access_tokens_by_grant ON oauth_access_tokens (grant_id);

CREATE OR REPLACE FUNCTION oauth_grant_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('postern_grants', OLD.id);
    ELSIF NEW.revoked_at IS NOT NULL AND OLD.revoked_at IS NULL THEN
        PERFORM pg_notify('postern_grants', NEW.id);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER oauth_grant_revoked AFTER UPDATE OR DELETE ON oauth_grants
    FOR EACH ROW EXECUTE FUNCTION oauth_grant_revoked();
