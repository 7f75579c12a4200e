-- The envelope of each EmailSubmission (RFC 8621 7; as migrations/postgres/0044_submission_envelope.sql, which also
-- notifies other instances of every EmailSubmission change): its MAIL FROM, and its RCPT TO addresses in order, one a
-- line (an address holds no control character: JMAP refuses one), as the client gave them or, when it gave none, as
-- taken from the sender and the message's To, Cc and Bcc. NULL for submissions recorded before this migration, whose
-- envelope was not kept: EmailSubmission/get says `null` for them.
ALTER TABLE outbound_submissions ADD COLUMN envelope_mail_from TEXT;
ALTER TABLE outbound_submissions ADD COLUMN envelope_rcpt_to TEXT;
