-- The outbound queue (as migrations/sqlite/0036_outbound_queue.sql; Sources/OutboundQueue): every JMAP
-- EmailSubmission, each recipient's disposition, the message while a recipient still waits to leave, and the addresses
-- suppressed after a hard bounce. A submission, its recipients and its content are written in one transaction, so a
-- submission acknowledged is a message queued: `kill -9` loses none. Instances share the queue by leasing recipients
-- (`lease_until`, `lease_token`); a lease that runs out lets another instance try again. Times are Unix seconds.

CREATE TABLE outbound_submissions (
    id          TEXT    PRIMARY KEY,         -- the EmailSubmission id ("S" + 32 hex)
    account_id  TEXT    NOT NULL,            -- the JMAP account (and identity) that submitted it
    sender      TEXT    NOT NULL,            -- the account's address: the envelope's MAIL FROM
    email_id    TEXT    NOT NULL,
    thread_id   TEXT    NOT NULL,
    send_at     BIGINT  NOT NULL,
    created_seq BIGINT  NOT NULL,            -- the account's change sequence when it was recorded
    updated_seq BIGINT  NOT NULL             -- ... and when a recipient's disposition last moved
);

CREATE INDEX outbound_submissions_changes ON outbound_submissions (account_id, updated_seq);
CREATE INDEX outbound_submissions_sender ON outbound_submissions (sender, send_at);

CREATE TABLE outbound_recipients (
    id            TEXT    PRIMARY KEY,       -- <submission id>:<position>
    submission_id TEXT    NOT NULL REFERENCES outbound_submissions(id) ON DELETE CASCADE,
    position      BIGINT  NOT NULL,          -- order in the envelope
    address       TEXT    NOT NULL,
    domain        TEXT    NOT NULL,          -- lowercased destination domain
    remote        BIGINT  NOT NULL,          -- 1 when it was queued to leave (counts against the sender's limits)
    status        TEXT    NOT NULL CHECK (status IN ('queued', 'delivered', 'failed', 'held')),
    smtp_reply    TEXT    NOT NULL,
    attempts      BIGINT  NOT NULL DEFAULT 0,
    next_attempt  BIGINT  NOT NULL DEFAULT 0,
    lease_until   BIGINT  NOT NULL DEFAULT 0,
    lease_token   TEXT,
    updated_at    BIGINT  NOT NULL
);

CREATE INDEX outbound_recipients_of ON outbound_recipients (submission_id, position);
CREATE INDEX outbound_recipients_due ON outbound_recipients (status, next_attempt);

-- The message once per submission, kept while one of its recipients is queued.
CREATE TABLE outbound_contents (
    submission_id TEXT PRIMARY KEY REFERENCES outbound_submissions(id) ON DELETE CASCADE,
    content       BYTEA NOT NULL
);

-- Each account's EmailSubmission state (RFC 8621 7): bumped by every record and every move of a disposition.
CREATE TABLE outbound_account_states (
    account_id TEXT    PRIMARY KEY,
    seq        BIGINT  NOT NULL
);

-- Addresses that bounced hard (a 5.1.x reply): no attempt to them until `suppressed_until`, an immediate "no" instead.
CREATE TABLE outbound_suppressions (
    address TEXT    PRIMARY KEY,                -- lowercased
    suppressed_until BIGINT  NOT NULL,
    reason  TEXT    NOT NULL
);
