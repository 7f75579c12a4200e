-- As migrations/sqlite/0072_oauth_token_exchange.sql, plus a notification on `postern_grants` when a delegated token
-- is revoked or deleted (the owner took its actor's leave away), carrying the grant its instances' caches keep it
-- under, so that every instance drops it at once. Revoking the owner's grant itself notifies through 0016's trigger.
CREATE TABLE oauth_owner_actors (
    owner_id   TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    client_id  TEXT    NOT NULL REFERENCES oauth_confidential_clients(client_id) ON DELETE CASCADE,
    created_at BIGINT  NOT NULL,
    PRIMARY KEY (owner_id, client_id)
);

CREATE TABLE oauth_delegated_tokens (
    jti        TEXT    PRIMARY KEY NOT NULL,
    grant_id   TEXT    NOT NULL,
    parent_jti TEXT,
    owner_id   TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    client_id  TEXT    NOT NULL REFERENCES oauth_confidential_clients(client_id) ON DELETE CASCADE,
    act_chain  TEXT    NOT NULL,
    scope      TEXT    NOT NULL,
    resource   TEXT    NOT NULL,
    agent_id   TEXT,
    bound_account_id TEXT,
    created_at BIGINT  NOT NULL,
    expires_at BIGINT  NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX oauth_delegated_tokens_by_owner ON oauth_delegated_tokens (owner_id, client_id);
CREATE INDEX oauth_delegated_tokens_by_expiry ON oauth_delegated_tokens (expires_at);
CREATE INDEX oauth_delegated_tokens_by_parent ON oauth_delegated_tokens (parent_jti);

CREATE OR REPLACE FUNCTION oauth_delegated_token_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('postern_grants', OLD.grant_id);
    ELSIF NEW.revoked_at IS NOT NULL AND OLD.revoked_at IS NULL THEN
        PERFORM pg_notify('postern_grants', NEW.grant_id);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER oauth_delegated_token_revoked AFTER UPDATE OR DELETE ON oauth_delegated_tokens
    FOR EACH ROW EXECUTE FUNCTION oauth_delegated_token_revoked();
