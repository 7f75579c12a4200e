-- Passkeys (issue 56; Sources/Passkeys; as migrations/postgres/0047_passkeys.sql). An owner's or a Mail.td Pro user's
-- WebAuthn credentials, and the challenges of the ceremonies in progress, in the database so that a ceremony begun on
-- one instance finishes on another.
--
-- A credential: its id (unique across everyone: an authenticator makes it at random), the WebAuthn user handle it was
-- registered under, the COSE public key and its algorithm as registered, the last counter accepted, the AAGUID and
-- attestation format (kept, never trusted), the backup flags (BE: a synced passkey; BS: backed up now), the name its
-- holder gave it, when it was made and last used, and when a counter that went back marked it possibly cloned (such a
-- credential signs nobody in).
CREATE TABLE passkey_credentials (
    id                 TEXT    PRIMARY KEY NOT NULL,                            -- lowercase UUID, for pages and CLI
    owner_id           TEXT    REFERENCES owners(id) ON DELETE CASCADE,         -- an owner's passkey
    pro_user_id        TEXT    REFERENCES mailbox_pro_users(id) ON DELETE CASCADE, -- a Mail.td Pro user's passkey
    credential_id      BLOB    NOT NULL UNIQUE CHECK (length(credential_id) BETWEEN 1 AND 1023),
    user_handle        BLOB    NOT NULL CHECK (length(user_handle) BETWEEN 1 AND 64),
    public_key         BLOB    NOT NULL,                                        -- COSE_Key, as written
    algorithm          INTEGER NOT NULL CHECK (algorithm IN (-7, -8, -257)),    -- ES256, EdDSA, RS256
    sign_count         INTEGER NOT NULL CHECK (sign_count BETWEEN 0 AND 4294967295),
    aaguid             BLOB    NOT NULL CHECK (length(aaguid) = 16),
    attestation_format TEXT    NOT NULL,
    backup_eligible    INTEGER NOT NULL CHECK (backup_eligible IN (0, 1)),
    backup_state       INTEGER NOT NULL CHECK (backup_state IN (0, 1)),
    name               TEXT    NOT NULL,
    created_at         INTEGER NOT NULL,                                        -- Unix seconds
    last_used_at       INTEGER,                                                 -- NULL until a sign-in
    cloned_at          INTEGER,                                                 -- NULL unless a counter went back
    CHECK ((owner_id IS NULL) <> (pro_user_id IS NULL))
);
CREATE INDEX passkey_credentials_owner ON passkey_credentials (owner_id);
CREATE INDEX passkey_credentials_pro_user ON passkey_credentials (pro_user_id);

-- A ceremony's challenge, single-use, by the SHA-256 of its bytes (the bytes go to the browser only): a registration's
-- is its holder's; a sign-in's may be nobody's yet (a discoverable credential names its holder when it answers).
CREATE TABLE passkey_challenges (
    digest      BLOB    PRIMARY KEY NOT NULL CHECK (length(digest) = 32),
    ceremony    TEXT    NOT NULL CHECK (ceremony IN ('registration', 'sign_in')),
    owner_id    TEXT    REFERENCES owners(id) ON DELETE CASCADE,
    pro_user_id TEXT    REFERENCES mailbox_pro_users(id) ON DELETE CASCADE,
    expires_at  INTEGER NOT NULL,                                               -- Unix seconds
    CHECK (owner_id IS NULL OR pro_user_id IS NULL)
);
CREATE INDEX passkey_challenges_expiry ON passkey_challenges (expires_at);
