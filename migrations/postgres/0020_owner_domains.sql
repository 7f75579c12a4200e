-- As migrations/sqlite/0020_owner_domains.sql.

CREATE TABLE owner_domains (
    id            TEXT    PRIMARY KEY NOT NULL,                            -- lowercase UUID
    owner_id      TEXT    NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    domain        TEXT    NOT NULL UNIQUE,                                 -- lower-cased FQDN; decides a race
    verify_token  TEXT    NOT NULL,                                        -- the TXT value that proves ownership
    verified_at   BIGINT,                                                  -- NULL while pending
    mx_configured BIGINT  NOT NULL DEFAULT 0,                              -- 1 when the last check saw our MX
    created_at    BIGINT  NOT NULL
);
CREATE INDEX owner_domains_by_owner ON owner_domains (owner_id, created_at, id);
