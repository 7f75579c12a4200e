-- The audit trail (`postern audit`, "Recent activity" on /owner): what owners, Pro accounts, apps and the operator
-- did, kept POSTERN_AUDIT_DAYS (default 90). Never a password, key or token: ids and addresses only.
CREATE TABLE audit_events (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    time           INTEGER NOT NULL,                -- Unix seconds
    actor_kind     TEXT    NOT NULL,                -- owner | pro | operator | app | system
    actor_id       TEXT    NOT NULL,
    owner_id       TEXT,                            -- whose /owner page shows it; NULL for Pro and operator events
    action         TEXT    NOT NULL,                -- owner.signin, inbox.created, ... (AuditAction)
    target         TEXT    NOT NULL,
    client_address TEXT,
    details        TEXT                             -- a small JSON object, or NULL
) STRICT;
CREATE INDEX audit_events_by_owner ON audit_events (owner_id, time);
CREATE INDEX audit_events_by_time ON audit_events (time);
