-- A grant may be bound to one inbox (the consent page's "only this inbox"): NULL reaches every inbox the owner
-- holds, now and later (Atomic's user-scoped grant); an agent account id reaches that inbox only, whatever the
-- token's audience. No foreign key: a bound inbox that is deleted leaves the grant reaching nothing, never
-- everything (agent_id, the default inbox, is set to NULL then).
ALTER TABLE oauth_grants ADD COLUMN bound_account_id TEXT;
