-- The sign-in provider a web inbox session came in through (issue 54; Sources/WebInbox; as
-- migrations/sqlite/0058_web_inbox_session_provider.sql): its name in POSTERN_OIDC_PROVIDERS, for a Pro user's
-- session that a provider's sign-in opened, so that signing out of it can also sign out at that provider when its
-- _LOGOUT is on (owner_sessions.provider, migration 0057, is the owners' side). NULL: any other sign-in.
ALTER TABLE web_inbox_sessions ADD COLUMN provider TEXT;
