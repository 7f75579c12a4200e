-- The delivery status notifications the outbound queue put in a sender's inbox (Sources/OutboundQueue, issue 50):
-- each written in the transaction that records the failures it reports, and linked here to its submission for
-- EmailSubmission's dsnBlobIds. Purged with the submission.
CREATE TABLE outbound_bounces (
    submission_id TEXT   NOT NULL,           -- outbound_submissions.id
    email_id      TEXT   NOT NULL,           -- mail_messages.id of the report in the sender's inbox
    created_at    BIGINT NOT NULL,           -- Unix seconds
    PRIMARY KEY (submission_id, email_id)
);
