-- Outbound delivery's memory across attempts and instances (as migrations/postgres/0043_outbound_delivery.sql;
-- Sources/OutboundQueue, issue 50).

-- Destination domains that took mail over TLS (chasquid's domaininfo): a failed STARTTLS handshake to one of them is
-- never retried in the clear. `postern mail tls-reset DOMAIN` deletes its row. Times are Unix seconds.
CREATE TABLE outbound_tls_domains (
    domain        TEXT    PRIMARY KEY,       -- lowercased
    first_seen_at INTEGER NOT NULL,           -- the first delivery over TLS
    last_seen_at  INTEGER NOT NULL            -- the latest
) STRICT;

-- When the recipient's sender was told its delivery is delayed (RFC 3464 Action: delayed), 0 before: set in the
-- completion that sends the notice, under the attempt's lease, so one notice per recipient across restarts and
-- instances.
ALTER TABLE outbound_recipients ADD COLUMN delay_notified_at INTEGER NOT NULL DEFAULT 0;
