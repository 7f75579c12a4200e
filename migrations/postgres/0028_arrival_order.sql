-- As migrations/sqlite/0028_arrival_order.sql; here the counter is a sequence, which concurrent inserts share without
-- waiting on each other. Existing rows are numbered in (received_at, id) order: PostgreSQL keeps no insertion order.
CREATE SEQUENCE mail_messages_received_seq;
ALTER TABLE mail_messages ADD COLUMN received_seq BIGINT;
UPDATE mail_messages m SET received_seq = o.n
    FROM (SELECT id, row_number() OVER (ORDER BY received_at, id) AS n FROM mail_messages) o
    WHERE m.id = o.id;
SELECT setval('mail_messages_received_seq', COALESCE((SELECT MAX(received_seq) FROM mail_messages), 0) + 1, false);
ALTER TABLE mail_messages ALTER COLUMN received_seq SET DEFAULT nextval('mail_messages_received_seq');
ALTER TABLE mail_messages ALTER COLUMN received_seq SET NOT NULL;
ALTER SEQUENCE mail_messages_received_seq OWNED BY mail_messages.received_seq;
CREATE INDEX mail_messages_by_arrival ON mail_messages (address, folder, received_at, received_seq);
DROP INDEX mail_messages_by_address;
