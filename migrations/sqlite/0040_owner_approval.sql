-- Owners the operator answers for (issue 49; Sources/Owners, OwnerApprovals): `approved_at` is when the operator made
-- the owner (`postern owner create`) or approved them (`postern owner approve`); NULL for an owner who signed up at
-- /owner/sign-up and waits. With POSTERN_OUTBOUND_SENDERS=owned only an approved owner's inboxes send outside.
-- Owners made before this migration are approved as of their creation: every owner answered for their inboxes under
-- the earlier rule, and no row says which the operator made (refusing all would stop the operator's own owners'
-- mail on upgrade). A server that ran open sign-up reviews them: `postern owner list`, `postern owner approve
-- --email E --withdraw` (docs/outbound.md).
ALTER TABLE owners ADD COLUMN approved_at INTEGER;
UPDATE owners SET approved_at = created_at;

-- Who answered for a submission's sender when it was recorded (Sources/OutboundQueue): an owner's key, NULL for
-- nobody. The per-owner limit (POSTERN_OUTBOUND_OWNER_PER_HOUR) counts every sender of one owner together, and an
-- inbox deleted or unlinked since still counts for its window.
ALTER TABLE outbound_submissions ADD COLUMN holder TEXT;
CREATE INDEX outbound_submissions_holder ON outbound_submissions (holder, send_at);
