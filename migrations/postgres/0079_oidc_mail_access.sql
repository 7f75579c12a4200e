-- As migrations/sqlite/0079_oidc_mail_access.sql (issue 88): a relying party the operator lets reach the owner's mail
-- (`postern oauth client create --mail-access`, Roundcube reading IMAP over XOAUTH2). Refresh tokens are stored only as
-- SHA-256 digests.

-- The mail permissions a relying party may ask for (the scopes mail.read, mail.send); NULL: its tokens open userinfo
-- only.
ALTER TABLE oidc_relying_parties ADD COLUMN mail_scope TEXT;

-- What an owner's sign-in to such a relying party granted when it asked for mail scopes: the chain of its refresh
-- tokens and access tokens (aud: the mail resource), revoked with the consent, a replayed code or a reused refresh
-- token. The id is what revocations announce (postern_grants), like oauth_grants.id.
CREATE TABLE oidc_mail_grants (
    id         TEXT    PRIMARY KEY NOT NULL,                       -- lowercase UUID
    client_id  TEXT    NOT NULL REFERENCES oidc_relying_parties(client_id) ON DELETE CASCADE,
    owner_id   TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    scope      TEXT    NOT NULL,                                   -- the sign-in's scopes, space-separated
    mail_scope TEXT    NOT NULL,                                   -- mail.read and/or mail.send
    resource   TEXT    NOT NULL,                                   -- the access tokens' aud (<issuer>/jmap)
    created_at BIGINT  NOT NULL,
    expires_at BIGINT  NOT NULL,                                   -- absolute end of the refresh chain
    revoked_at BIGINT
);
CREATE INDEX oidc_mail_grants_by_owner ON oidc_mail_grants (owner_id, client_id);

-- The grant an access token belongs to; NULL: a userinfo-only token.
ALTER TABLE oidc_access_tokens ADD COLUMN grant_id TEXT REFERENCES oidc_mail_grants(id) ON DELETE CASCADE;

-- Refresh tokens of those grants, rotated at each use; a superseded one presented again (past the race window)
-- revokes its grant.
CREATE TABLE oidc_refresh_tokens (
    token_digest  BYTEA   PRIMARY KEY NOT NULL CHECK (octet_length(token_digest) = 32),
    grant_id      TEXT    NOT NULL REFERENCES oidc_mail_grants(id) ON DELETE CASCADE,
    issued_at     BIGINT  NOT NULL,
    expires_at    BIGINT  NOT NULL,
    superseded_at BIGINT
);
CREATE INDEX oidc_refresh_tokens_by_grant ON oidc_refresh_tokens (grant_id);

-- Every instance's cache of live grants forgets a revoked or deleted one (OAuthGrantCache, as oauth_grants' trigger).
CREATE OR REPLACE FUNCTION oidc_mail_grant_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('postern_grants', OLD.id);
    ELSIF NEW.revoked_at IS NOT NULL AND OLD.revoked_at IS NULL THEN
        PERFORM pg_notify('postern_grants', NEW.id);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER oidc_mail_grant_revoked AFTER UPDATE OR DELETE ON oidc_mail_grants
    FOR EACH ROW EXECUTE FUNCTION oidc_mail_grant_revoked();
