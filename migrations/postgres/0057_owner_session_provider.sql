-- The sign-in provider an owner's session came in through (issue 54; Sources/Owners; as
-- migrations/sqlite/0057_owner_session_provider.sql): its name in POSTERN_OIDC_PROVIDERS, so that signing out of it
-- can also sign out at that provider when its _LOGOUT is on. NULL: a password or passkey sign-in.
ALTER TABLE owner_sessions ADD COLUMN provider TEXT;
