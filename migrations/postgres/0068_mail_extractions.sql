-- As migrations/sqlite/0068_mail_extractions.sql: each message's one-time codes and links with their kinds, computed
-- when it is stored (issue 85), one row per message, deleted with it by the cascading key. Expand-only (decision 32):
-- a new table. The release before never reads it, and a message it stores during a rolling upgrade has no row, as
-- one stored before the migration has none: this release reads such a message as not yet extracted, and
-- `postern mail extract --backfill` fills them.
CREATE TABLE mail_extractions (
    message_id TEXT NOT NULL PRIMARY KEY REFERENCES mail_messages(id) ON DELETE CASCADE,
    best_code  TEXT,                            -- the best code's value; NULL when the message has none
    link_kinds TEXT NOT NULL,                   -- the kinds of its links, each framed by spaces: ' verify other '
    extraction TEXT NOT NULL                    -- the whole MessageExtraction as JSON (codes, then links)
);
