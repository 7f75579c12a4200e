-- When each agent last logged in with its API key (POST /api/v1/session with apiKey), Unix seconds; NULL for never
-- (and for every login before this migration). `postern agent list` shows it. Written after the proof of work is
-- checked, at most once per account and second.
ALTER TABLE agent_accounts ADD COLUMN last_login_at INTEGER;
