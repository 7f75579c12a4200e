-- As migrations/sqlite/0029_envelope_to.sql: the RCPT TO addresses that led to each stored copy, joined by ", ";
-- NULL for older copies and for those no SMTP envelope brought.
ALTER TABLE mail_messages ADD COLUMN envelope_to TEXT;
