-- The envelope of each EmailSubmission (RFC 8621 7; as migrations/sqlite/0044_submission_envelope.sql): its MAIL FROM,
-- and its RCPT TO addresses in order, one a line (an address holds no control character: JMAP refuses one), as the
-- client gave them or, when it gave none, as taken from the sender and the message's To, Cc and Bcc. NULL for
-- submissions recorded before this migration, whose envelope was not kept: EmailSubmission/get says `null` for them.
ALTER TABLE outbound_submissions ADD COLUMN envelope_mail_from TEXT;
ALTER TABLE outbound_submissions ADD COLUMN envelope_rcpt_to TEXT;

-- Every move of a submission's EmailSubmission state (its record, a recipient's outcome, the operator's delete: each
-- inserts the row or sets its `updated_seq`) notifies `postern_mail` with the sender's address when it commits, as a
-- change of the sender's mail does (0015): every instance wakes that account's JMAP event streams (RFC 8620 7.3),
-- which push the new EmailSubmission state. The instance that wrote announces it to its own streams itself.
CREATE OR REPLACE FUNCTION outbound_submission_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('postern_mail', NEW.sender);
    RETURN NULL;
END
$$;

CREATE TRIGGER outbound_submission_notify AFTER INSERT OR UPDATE OF updated_seq ON outbound_submissions
    FOR EACH ROW EXECUTE FUNCTION outbound_submission_notify();
