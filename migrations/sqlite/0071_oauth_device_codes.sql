-- As migrations/postgres/0071_oauth_device_codes.sql (issue 86 item 1): the device authorization grant (RFC 8628).
-- A device code is stored as its SHA-256 digest; its user code (8 of RFC 8628 section 6.1's consonants, normal form)
-- is what the owner types on /owner/device. `version` grows at each change, so that a change made from a stale read
-- is refused (the store's compare and set). Approving writes an oauth_grants row, the one grant model.
CREATE TABLE oauth_device_codes (
    device_digest  BLOB    PRIMARY KEY NOT NULL CHECK (length(device_digest) = 32),
    user_code      TEXT    NOT NULL UNIQUE,
    client_id      TEXT    NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
    scope          TEXT    NOT NULL,                                      -- space-separated, as requested
    resource       TEXT    NOT NULL,
    created_at     INTEGER NOT NULL,                                      -- Unix seconds
    expires_at     INTEGER NOT NULL,
    poll_interval  INTEGER NOT NULL,                                      -- seconds; slow_down adds 5
    last_polled_at INTEGER,
    version        INTEGER NOT NULL DEFAULT 0,
    grant_id       TEXT    REFERENCES oauth_grants(id) ON DELETE CASCADE, -- set when the owner approves
    denied_at      INTEGER,
    redeemed_at    INTEGER
) STRICT;
CREATE INDEX oauth_device_codes_by_expiry ON oauth_device_codes (expires_at);
CREATE INDEX oauth_device_codes_by_grant ON oauth_device_codes (grant_id);

-- Wrong user codes entered on /owner/device, per owner session and per client address (keys are SHA-256 digests),
-- counted in a window that starts at the first one.
CREATE TABLE oauth_device_guesses (
    key_digest  BLOB    PRIMARY KEY NOT NULL CHECK (length(key_digest) = 32),
    failures    INTEGER NOT NULL,
    window_ends INTEGER NOT NULL                                          -- Unix seconds
) STRICT;
CREATE INDEX oauth_device_guesses_by_window ON oauth_device_guesses (window_ends);
