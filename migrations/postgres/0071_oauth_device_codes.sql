-- As migrations/sqlite/0071_oauth_device_codes.sql (issue 86 item 1): the device authorization grant (RFC 8628).
CREATE TABLE oauth_device_codes (
    device_digest  BYTEA   PRIMARY KEY NOT NULL CHECK (octet_length(device_digest) = 32),
    user_code      TEXT    NOT NULL UNIQUE,
    client_id      TEXT    NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
    scope          TEXT    NOT NULL,                                      -- space-separated, as requested
    resource       TEXT    NOT NULL,
    created_at     BIGINT  NOT NULL,                                      -- Unix seconds
    expires_at     BIGINT  NOT NULL,
    poll_interval  BIGINT  NOT NULL,                                      -- seconds; slow_down adds 5
    last_polled_at BIGINT,
    version        BIGINT  NOT NULL DEFAULT 0,
    grant_id       TEXT    REFERENCES oauth_grants(id) ON DELETE CASCADE, -- set when the owner approves
    denied_at      BIGINT,
    redeemed_at    BIGINT
);
CREATE INDEX oauth_device_codes_by_expiry ON oauth_device_codes (expires_at);
CREATE INDEX oauth_device_codes_by_grant ON oauth_device_codes (grant_id);

-- Wrong user codes entered on /owner/device, per owner session and per client address (keys are SHA-256 digests).
CREATE TABLE oauth_device_guesses (
    key_digest  BYTEA   PRIMARY KEY NOT NULL CHECK (octet_length(key_digest) = 32),
    failures    BIGINT  NOT NULL,
    window_ends BIGINT  NOT NULL                                          -- Unix seconds
);
CREATE INDEX oauth_device_guesses_by_window ON oauth_device_guesses (window_ends);
