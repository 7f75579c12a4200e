-- 0001_core (PostgreSQL): tables every surface shares. The same numbers and names as migrations/sqlite/, with
-- PostgreSQL's types; applied once, in one transaction, under an advisory lock so that instances starting together
-- migrate once. Never edit this file after it ships: add a new NNNN_name.sql to both directories instead.

-- Single-use ledger of proof-of-work challenge ids, shared by the agent and mailbox surfaces and by every instance:
-- the primary key makes "consume" an atomic INSERT, so one solved challenge is accepted once across all of them.
CREATE TABLE challenges (
    id         TEXT   PRIMARY KEY,
    surface    TEXT   NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE INDEX challenges_expires_at ON challenges (expires_at);

-- One row that /readyz upserts to prove the database accepts a durable write.
CREATE TABLE readiness_probe (
    id         BIGINT PRIMARY KEY CHECK (id = 1),
    checked_at BIGINT NOT NULL
);
