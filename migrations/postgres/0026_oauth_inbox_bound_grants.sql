-- A grant may be bound to one inbox (as migrations/sqlite/0026_oauth_inbox_bound_grants.sql): NULL reaches every
-- inbox the owner holds; an agent account id reaches that inbox only. No foreign key, so that deleting the inbox
-- leaves the grant reaching nothing, never everything.
ALTER TABLE oauth_grants ADD COLUMN bound_account_id TEXT;
