-- As migrations/sqlite/0080_openid_claims_pairwise_es256.sql (issue 88): the `claims` request parameter (OpenID
-- Connect Core 1.0 section 5.5), pairwise subjects (section 8.1) and ES256 ID tokens. Only additions: an instance of
-- the release before reads every row it read before (it signs an ES256 party's ID tokens with RS256 and gives a
-- pairwise party the public subject until it is replaced; finish the roll).

-- The claims a sign-in's request asked for by name (email, email_verified, name), as JSON
-- {"id_token":{...},"userinfo":{...}} in the parser's normal form; NULL: none asked.
ALTER TABLE oidc_codes ADD COLUMN claims TEXT;
-- The userinfo member of that request, for the access token the code's redemption issued; NULL: none.
ALTER TABLE oidc_access_tokens ADD COLUMN claims TEXT;
-- The same for a mail grant, where each refresh reads it for the grant's next access token (the access tokens' rows
-- are swept once expired, so the grant keeps it); NULL: none.
ALTER TABLE oidc_mail_grants ADD COLUMN claims TEXT;

-- How a relying party knows an owner: 'public' (the owner's id) or 'pairwise' (a keyed digest of the sector and the
-- owner's id); the sector is the one host of its redirect URIs.
ALTER TABLE oidc_relying_parties ADD COLUMN subject_type TEXT NOT NULL DEFAULT 'public'
    CHECK (subject_type IN ('public', 'pairwise'));
ALTER TABLE oidc_relying_parties ADD COLUMN sector_identifier TEXT;
-- id_token_signed_response_alg with ES256 allowed; NULL: id_token_alg (which the release before reads) decides.
ALTER TABLE oidc_relying_parties ADD COLUMN id_token_signed_response_alg TEXT
    CHECK (id_token_signed_response_alg IN ('RS256', 'EdDSA', 'ES256'));

-- The ring's P-256 signing keys (PKCS#8 PEM sealed like the others), which sign ES256 ID tokens: the columns of
-- signing_keys but the kind, in a table of their own, because the release before reads every row of signing_keys and
-- refuses a kind it does not know (widening signing_keys' kind check would break it in a rolling upgrade). Their
-- generations follow the same count as signing_keys'.
CREATE TABLE signing_keys_p256 (
    kid        TEXT    PRIMARY KEY,
    created_at BIGINT  NOT NULL,
    signs_from BIGINT  NOT NULL,
    generation BIGINT  NOT NULL UNIQUE,
    sealed     BYTEA   NOT NULL
);

-- 0079's trigger calls 0016's oauth_grant_revoked(), which has the same body as 0079's oidc_mail_grant_revoked():
-- one function for every grant table's notification. The copy stays until a later release drops it (a contraction,
-- decision 32: the release before 0080 runs 0079's definitions).
CREATE OR REPLACE TRIGGER oidc_mail_grant_revoked AFTER UPDATE OR DELETE ON oidc_mail_grants
    FOR EACH ROW EXECUTE FUNCTION oauth_grant_revoked();
