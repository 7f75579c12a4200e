-- Retention counts each address's mail on its own (issue 81 item 8): the pass finds the addresses past
-- POSTERN_MAIL_MAX_MESSAGES and, for each, the newest message past the limit and everything older. This index walks one
-- address's messages in arrival order, newest first, without sorting them, and covers the pass's count by address.
-- Expand-only: a new index.
CREATE INDEX mail_messages_by_address_seq ON mail_messages (address, received_seq);
