-- The web inbox's one-shot notices (Sources/WebInbox, WebInboxFlashes): what a post of the Pro dashboard tells the page
-- its 303 leads to, a new API token or webhook secret among it, kept on the server (never in a URL or a cookie) and
-- bound to the web-inbox session. The notice is sealed (AES-256-GCM) under a key derived from the session's cookie,
-- which the server does not keep: a database read opens none. Read once (the row is deleted when read), two minutes.
CREATE TABLE web_inbox_flashes (
    session_digest BLOB    PRIMARY KEY NOT NULL CHECK (length(session_digest) = 32),  -- as web_inbox_sessions
    sealed         BLOB    NOT NULL,
    expires_at     INTEGER NOT NULL
) STRICT;
CREATE INDEX web_inbox_flashes_by_expiry ON web_inbox_flashes (expires_at);
