-- What Postern found in each message (issue 85): its one-time codes, best first, and its links with their kinds, as
-- MailExtraction's MessageExtraction computed them when the message was stored, so that every door and every
-- instance reads the same answer and nothing is parsed twice. A table of its own beside mail_messages, one row per
-- message, deleted with it by the cascading key (as mail_attachments): the wide message rows stay as they are, and a
-- door's wait for "has a code" or "has a link of a kind" reads two narrow columns, the same SQL on both backends.
-- A message stored before this migration has no row until `postern mail extract --backfill` gives it one.
CREATE TABLE mail_extractions (
    message_id TEXT NOT NULL PRIMARY KEY REFERENCES mail_messages(id) ON DELETE CASCADE,
    best_code  TEXT,                            -- the best code's value; NULL when the message has none
    link_kinds TEXT NOT NULL,                   -- the kinds of its links, each framed by spaces: ' verify other '
    extraction TEXT NOT NULL                    -- the whole MessageExtraction as JSON (codes, then links)
) STRICT;
