-- Arrival order within one second. `received_at` holds Unix seconds, and `id` is a random UUID, so two messages that
-- arrived in the same second came back in random order (the newest-first list, the oldest unread, Email/query by
-- receivedAt). `received_seq` counts arrivals across the store: it rises with every stored message and breaks every
-- tie on `received_at`. Existing rows take their rowid, which SQLite gave them in insertion order.
ALTER TABLE mail_messages ADD COLUMN received_seq INTEGER NOT NULL DEFAULT 0;
UPDATE mail_messages SET received_seq = rowid;
CREATE INDEX mail_messages_by_arrival ON mail_messages (address, folder, received_at, received_seq);
CREATE INDEX mail_messages_by_seq ON mail_messages (received_seq);
DROP INDEX mail_messages_by_address;
