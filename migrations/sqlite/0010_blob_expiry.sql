-- Uploaded blobs expire an hour after upload (RFC 8620 section 6.1) and count against their address's quota until
-- then: the periodic purge finds the expired ones by upload time, across addresses.
CREATE INDEX mail_blobs_by_created_at ON mail_blobs (created_at);
