-- An owner rotating an inbox's API key (issue 28) ends the sessions the old key opened: a session whose `iat` is
-- before `key_rotated_at` buys no capability. NULL: the key was never rotated.
ALTER TABLE agent_accounts ADD COLUMN key_rotated_at INTEGER;
