-- As migrations/sqlite/0030_agent_last_login.sql: when each agent last logged in with its API key, Unix seconds;
-- NULL for never.
ALTER TABLE agent_accounts ADD COLUMN last_login_at BIGINT;
