-- Whether a Mail.td Pro user's email is proven (issue 54 item 4; Sources/MailboxAccounts), as migration 0051 records
-- for owners: `email_verified_at` is when a sign-in provider that vouched for that very address (email_verified true)
-- made the user or was linked to them. NULL: nobody has proven it (every Pro user the operator made with a password
-- before this migration, and after it). A provider's identity is never linked into a Pro user by email alone unless
-- this is set (_TRUST_EMAIL).
-- A Pro user made by a provider has no password: its `password_hash` is '' (as an owner's, migration 0051), which
-- `POST /api/user/login` and the web inbox's sign-in refuse as they refuse a wrong password, at the same cost.
ALTER TABLE mailbox_pro_users ADD COLUMN email_verified_at INTEGER;
