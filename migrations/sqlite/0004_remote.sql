-- 0004_remote: users of the remote Argon2 registration surface ("Bad Passwords" compatible, CONTRACT 3).
-- Never edit this file after it ships: add a new NNNN_name.sql instead.

-- One row per registered email. Only the URL is stored, never a hash: every login fetches the URL
-- again and the hash it serves then decides. token_version is the `ver` claim of the tokens minted
-- for this user; DELETE /logout increments it, so every token issued before stops validating.
CREATE TABLE remote_users (
    email             TEXT    PRIMARY KEY COLLATE NOCASE,
    password_hash_url TEXT    NOT NULL,
    token_version     INTEGER NOT NULL DEFAULT 0,
    created_at        INTEGER
) STRICT;
