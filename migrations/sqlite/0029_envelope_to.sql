-- The envelope recipient of each stored copy. A copy used to keep only `envelope_from`; the address it is stored
-- under is the mailbox, which differs from what the client asked for when a subaddress (`alice+tag@dom`, RFC 5233)
-- was delivered to `alice@dom` or when a message was kept in the catch-all (`catch-all@postern.invalid`) for an
-- unknown or foreign recipient. `envelope_to` holds the RCPT TO addresses that led to this copy, joined by ", ", in
-- the order given; NULL for copies stored before this migration and for those no SMTP envelope brought (JMAP
-- submission, the sender's own copy).
ALTER TABLE mail_messages ADD COLUMN envelope_to TEXT;
