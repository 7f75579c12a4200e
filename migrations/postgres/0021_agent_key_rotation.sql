-- As migrations/sqlite/0021_agent_key_rotation.sql.
ALTER TABLE agent_accounts ADD COLUMN key_rotated_at BIGINT;
