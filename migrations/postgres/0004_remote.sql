-- 0004_remote (PostgreSQL): users of the remote Argon2 registration surface, as migrations/sqlite/0004_remote.sql.
-- SQLite compares the email with COLLATE NOCASE; here a unique index on lower(email) gives the same rule (one user
-- per email whatever its case), and the store looks emails up by lower(email).
CREATE TABLE remote_users (
    email             TEXT   PRIMARY KEY,
    password_hash_url TEXT   NOT NULL,
    token_version     BIGINT NOT NULL DEFAULT 0,
    created_at        BIGINT
);

CREATE UNIQUE INDEX remote_users_email_nocase ON remote_users (lower(email));
