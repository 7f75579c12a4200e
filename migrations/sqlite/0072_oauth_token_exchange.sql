-- As migrations/postgres/0072_oauth_token_exchange.sql (issue 86 item 3): the agent clients each owner lets act for
-- them (token exchange, RFC 8693; the JWT bearer grant of an identity assertion, RFC 7523), and the tokens minted so.
CREATE TABLE oauth_owner_actors (
    owner_id   TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    client_id  TEXT    NOT NULL REFERENCES oauth_confidential_clients(client_id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (owner_id, client_id)
) STRICT;

-- One row per delegated access token, found by its `jti`. grant_id is what it dies with: the owner's grant
-- (oauth_grants.id) its subject token descended from, or, for a token rooted in an identity assertion, the jti of
-- the row that assertion minted (its own jti for that row). parent_jti: the subject token's jti (a delegated token
-- revoked by its holder takes the tokens exchanged from it along). act_chain: the actors' client ids separated by spaces,
-- the current one (client_id) first; empty for a JWT bearer grant's token, which has no `act`.
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
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER
) STRICT;
CREATE INDEX oauth_delegated_tokens_by_owner ON oauth_delegated_tokens (owner_id, client_id);
CREATE INDEX oauth_delegated_tokens_by_expiry ON oauth_delegated_tokens (expires_at);
CREATE INDEX oauth_delegated_tokens_by_parent ON oauth_delegated_tokens (parent_jti);
