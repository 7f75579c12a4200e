-- Outbound delivery's memory across attempts and instances (as migrations/sqlite/0043_outbound_delivery.sql;
-- Sources/OutboundQueue, issue 50).

-- Destination domains that took mail over TLS (chasquid's domaininfo): a failed STARTTLS handshake to one of them is
-- never retried in the clear. `postern mail tls-reset DOMAIN` deletes its row. Times are Unix seconds.
CREATE TABLE outbound_tls_domains (
    domain        TEXT    PRIMARY KEY,       -- lowercased
    first_seen_at BIGINT  NOT NULL,           -- the first delivery over TLS
    last_seen_at  BIGINT  NOT NULL            -- the latest
);
