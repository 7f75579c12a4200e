-- As migrations/sqlite/0065_mail_retention_by_address.sql: retention counts each address's mail on its own (issue 81
-- item 8), and this index walks one address's messages in arrival order and covers the count by address. Expand-only:
-- a new index, which the release before never names.
CREATE INDEX mail_messages_by_address_seq ON mail_messages (address, received_seq);
