-- 0001_core: tables every surface shares. Applied once, inside one transaction, by the Storage migrator.
-- Never edit this file after it ships: the migrator refuses to start when an applied file changes.
-- Add a new NNNN_name.sql instead.

-- Single-use ledger of proof-of-work challenge ids, shared by the agent and mailbox surfaces.
-- The primary key makes "consume" an atomic INSERT: the first request wins, every later one gets a
-- unique-constraint failure, across threads, processes and restarts. Rows are kept until the
-- challenge can no longer be accepted (expires_at, leeway included) and then purged.
CREATE TABLE challenges (
    id         TEXT    PRIMARY KEY,
    surface    TEXT    NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;

CREATE INDEX challenges_expires_at ON challenges (expires_at);

-- One row that /readyz upserts to prove the database accepts a durable write.
CREATE TABLE readiness_probe (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    checked_at INTEGER NOT NULL
) STRICT;
