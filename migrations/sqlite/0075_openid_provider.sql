-- Postern as the OpenID Provider of the operator's other apps (issue 88; as migrations/postgres/0075_openid_provider.sql).
-- Codes and access tokens are stored only as SHA-256 digests or ids; the sessions a relying party signed into are
-- named by the digest of the owner session's token (owner_sessions.token_digest), never the token.

-- The operator's confidential clients that are OpenID relying parties (`postern oauth client create --redirect-uri`).
CREATE TABLE oidc_relying_parties (
    client_id                 TEXT    PRIMARY KEY NOT NULL
        REFERENCES oauth_confidential_clients(client_id) ON DELETE CASCADE,
    redirect_uris             TEXT    NOT NULL,                    -- JSON array, compared byte for byte
    post_logout_redirect_uris TEXT    NOT NULL DEFAULT '[]',       -- JSON array
    backchannel_logout_uri    TEXT,                                -- OpenID Back-Channel Logout 1.0; NULL: none
    id_token_alg              TEXT    NOT NULL DEFAULT 'RS256' CHECK (id_token_alg IN ('RS256', 'EdDSA')),
    first_party               INTEGER NOT NULL DEFAULT 0,          -- 1: the consent page is skipped
    legacy_no_pkce            INTEGER NOT NULL DEFAULT 0,          -- 1: may omit PKCE (the only clients that may)
    sign_in                   TEXT    NOT NULL DEFAULT 'all' CHECK (sign_in IN ('all', 'listed', 'second_factor'))
) STRICT;

-- The owners who may sign in to a relying party whose sign_in is 'listed'.
CREATE TABLE oidc_relying_party_owners (
    client_id TEXT NOT NULL REFERENCES oidc_relying_parties(client_id) ON DELETE CASCADE,
    owner_id  TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    PRIMARY KEY (client_id, owner_id)
) STRICT;

-- An owner's consent to a relying party and its scopes, remembered until the owner revokes it.
CREATE TABLE oidc_consents (
    owner_id   TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    client_id  TEXT    NOT NULL REFERENCES oidc_relying_parties(client_id) ON DELETE CASCADE,
    scope      TEXT    NOT NULL,                                   -- space-separated
    granted_at INTEGER NOT NULL,
    PRIMARY KEY (owner_id, client_id)
) STRICT;

-- Authorization codes of relying parties: single use, short-lived; a second use revokes the tokens the first issued.
CREATE TABLE oidc_codes (
    code_digest    BLOB    PRIMARY KEY NOT NULL CHECK (length(code_digest) = 32),
    client_id      TEXT    NOT NULL REFERENCES oidc_relying_parties(client_id) ON DELETE CASCADE,
    owner_id       TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    redirect_uri   TEXT    NOT NULL,
    code_challenge TEXT,                                           -- S256; NULL only for a legacy_no_pkce client
    nonce          TEXT,
    scope          TEXT    NOT NULL,
    auth_time      INTEGER NOT NULL,
    method         TEXT    NOT NULL,                               -- as owner_sessions.methods (0074)
    session_digest BLOB    NOT NULL CHECK (length(session_digest) = 32),
    expires_at     INTEGER NOT NULL,
    used_at        INTEGER,
    access_jti     TEXT                                            -- the access token its redemption issued
) STRICT;
CREATE INDEX oidc_codes_by_expiry ON oidc_codes (expires_at);

-- Access tokens issued to relying parties (audience: the userinfo endpoint).
CREATE TABLE oidc_access_tokens (
    jti        TEXT    PRIMARY KEY NOT NULL,
    client_id  TEXT    NOT NULL REFERENCES oidc_relying_parties(client_id) ON DELETE CASCADE,
    owner_id   TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    scope      TEXT    NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER
) STRICT;
CREATE INDEX oidc_access_tokens_by_expiry ON oidc_access_tokens (expires_at);

-- The relying parties each owner session signed into, for back-channel logout when it ends.
CREATE TABLE oidc_session_clients (
    session_digest BLOB    NOT NULL CHECK (length(session_digest) = 32),
    client_id      TEXT    NOT NULL REFERENCES oidc_relying_parties(client_id) ON DELETE CASCADE,
    owner_id       TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    signed_in_at   INTEGER NOT NULL,
    PRIMARY KEY (session_digest, client_id)
) STRICT;
