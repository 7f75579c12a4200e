-- Identities at sign-in providers (issue 54; Sources/SignInProviders): a person's identity at a provider, the pair
-- (issuer, subject) and never an email, linked to one owner or one Pro user. Within one family of accounts an identity
-- links to one account at most (the primary key); the same identity may sign in as an owner and as a Pro user. The
-- link goes with its account (ON DELETE CASCADE). Times are Unix seconds.
CREATE TABLE signin_identities (
    surface      TEXT    NOT NULL CHECK (surface IN ('owners', 'pro')),
    issuer       TEXT    NOT NULL,      -- the provider's issuer (GitHub: its web URL)
    subject      TEXT    NOT NULL,      -- the id_token's sub (GitHub: the user's numeric id)
    provider     TEXT    NOT NULL,      -- the name of POSTERN_OIDC_PROVIDERS it was linked through
    owner_id     TEXT    REFERENCES owners(id) ON DELETE CASCADE,
    pro_user_id  TEXT    REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,
    email        TEXT,                  -- the provider's verified email when linked, shown in the settings
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    PRIMARY KEY (surface, issuer, subject),
    CHECK ((surface = 'owners' AND owner_id IS NOT NULL AND pro_user_id IS NULL)
        OR (surface = 'pro' AND pro_user_id IS NOT NULL AND owner_id IS NULL))
) STRICT;
CREATE INDEX signin_identities_by_owner ON signin_identities (owner_id);
CREATE INDEX signin_identities_by_pro_user ON signin_identities (pro_user_id);
