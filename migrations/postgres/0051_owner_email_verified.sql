-- As migrations/sqlite/0051_owner_email_verified.sql.
-- Whether an owner's email is proven (issue 54 item 4; Sources/Owners): `email_verified_at` is when it was, by the
-- operator making the owner (`postern owner create`) or by a linked sign-in provider that vouched for that very address
-- (email_verified true) while the owner proved the account (signed in, or typed its password to link). NULL: nobody has
-- proven it (an owner who signed up with a password; every owner made before this migration, since no row says who
-- made it). A provider's identity is never linked into an owner by email alone unless this is set (_TRUST_EMAIL).
-- An owner made by a provider has no password: its `password_hash` is '' (as a Mail.td account with a verifier has,
-- migration 0005), which the password sign-in refuses as it refuses a wrong password.
ALTER TABLE owners ADD COLUMN email_verified_at BIGINT;
