-- Held mail, typed (issue 51; as migrations/sqlite/0045_held_reason.sql). A recipient kept in the outbox records why
-- (`held_reason`: HeldReason's code, `outbound_off`, `needs_owner` or `awaiting_approval`), so that every surface
-- words it and a release decides on it; NULL for any other status. Rows held before this migration kept only the reply
-- line they showed, whose two texts name their reason; they are given it once, here.
ALTER TABLE outbound_recipients ADD COLUMN held_reason TEXT;
UPDATE outbound_recipients SET held_reason = CASE
        WHEN smtp_reply LIKE '%until the operator approves%' THEN 'awaiting_approval'
        WHEN smtp_reply LIKE '%may not send to other domains%' THEN 'needs_owner'
        ELSE 'outbound_off'
    END
    WHERE status = 'held';
-- The submission an outbox entry was kept for (NULL: kept without a ledger, or before this migration), so that
-- releasing the entry moves that submission's held recipients on (`postern mail outbox --release`).
ALTER TABLE mail_outbox ADD COLUMN submission_id TEXT;
