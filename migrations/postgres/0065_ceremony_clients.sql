-- As migrations/sqlite/0065_ceremony_clients.sql (issue 81 item 10): the client that began a ceremony nobody signed
-- in to (a passkey sign-in's challenge, a sign-in provider's login transaction), its ClientAddressKey (an IPv4
-- address, an IPv6 /64), so that each client is held to its own share of these rows and one client's flood no longer
-- fills the cap everyone shares. Expand-only: a new nullable column and indexes; the release before inserts without
-- it (its rows count only against the ceiling, and expire within ten minutes).
ALTER TABLE passkey_challenges ADD COLUMN client TEXT;
CREATE INDEX passkey_challenges_client ON passkey_challenges (client, expires_at);
ALTER TABLE signin_transactions ADD COLUMN client TEXT;
CREATE INDEX signin_transactions_client ON signin_transactions (client, expires_at);
