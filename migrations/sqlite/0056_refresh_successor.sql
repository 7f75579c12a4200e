-- An OAuth rotation records which refresh token replaced the one it superseded (issue 53): a refresh answered 503
-- whose rotation committed after all leaves the client holding the superseded token, and its retry, while the
-- successor it never received is unused, is rotated again instead of being taken for a reuse that revokes the grant.
ALTER TABLE oauth_refresh_tokens ADD COLUMN successor_digest BLOB;
