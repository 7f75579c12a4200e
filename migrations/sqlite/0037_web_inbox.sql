-- The web inbox (Sources/WebInbox): the sessions of people who signed in to read mail in a browser, and the one-time
-- links `postern web link` prints. Cookies and links hold the tokens; these tables only their SHA-256 digests. Owners
-- read through their own owner session and have no row here. Times are Unix seconds.

-- A signed-in web-inbox browser: who it is (`kind` and `subject`), read again on every request, so that what it may see
-- follows the accounts as they change; and what it rests on (`binding`), checked on every request too: the account's or
-- Pro user's token epoch at sign-in (`epoch:N`: a password reset ends it), the API token it was opened with
-- (`token:<id>`: revoking the token ends it), or the account behind a linked address (`account:<id>`, `account:` for
-- a catch-all: another account at that address later opens nothing).
CREATE TABLE web_inbox_sessions (
    token_digest BLOB    PRIMARY KEY NOT NULL CHECK (length(token_digest) = 32),
    kind         TEXT    NOT NULL CHECK (kind IN ('account', 'pro', 'link')),
    subject      TEXT    NOT NULL,            -- the account id, the Pro user id, or the linked address
    binding      TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX web_inbox_sessions_by_expiry ON web_inbox_sessions (expires_at);

-- One-time links to one mailbox: single use (the row is deleted when used), ten minutes.
CREATE TABLE web_inbox_links (
    token_digest BLOB    PRIMARY KEY NOT NULL CHECK (length(token_digest) = 32),
    address      TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX web_inbox_links_by_expiry ON web_inbox_links (expires_at);
