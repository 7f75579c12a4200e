-- As migrations/postgres/0078_delegated_token_inboxes.sql (issue 86): a token minted for an agent client acting for an
-- owner (token exchange, the JWT bearer grant) reaches only the inboxes its actors were bound to that the owner
-- holds. inbox_ids: those inboxes' account ids (lowercase) separated by spaces, the intersection of the subject's set
-- and the acting client's bound inboxes when it was minted; NULL for a token minted before this migration, which
-- reaches the owner's inboxes as before.
ALTER TABLE oauth_delegated_tokens ADD COLUMN inbox_ids TEXT;
