-- Where each stored copy came from (issue 49): 'written' when this mailbox wrote it (JMAP Email/set, the web inbox's
-- compose and MCP's send_email through it), 'received' when it was delivered (SMTP, local delivery, the sender's
-- copy of another account's submission). Only a written message may be submitted (EmailSubmission/set): a received
-- one is forwarded by a new message, never sent again as its bytes, whose header someone else wrote.
-- Copies stored before this migration: drafts and sent mail that no SMTP envelope brought and whose envelope sender is
-- the mailbox itself were written here; everything else counts as received.
ALTER TABLE mail_messages ADD COLUMN origin TEXT NOT NULL DEFAULT 'received' CHECK (origin IN ('received', 'written'));
UPDATE mail_messages SET origin = 'written'
    WHERE folder IN ('drafts', 'sent') AND envelope_to IS NULL AND lower(envelope_from) = address;
