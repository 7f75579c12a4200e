import SMTPOutcomes
import Storage

extension OutboundQueue {
    /// Why submission `submissionID`'s recipients are held, as recorded; nil when none of them is held (or there is
    /// no such submission).
    public func heldReason(submissionID: String) async throws -> HeldReason? {
        try await database.read { connection in
            try connection.query(
                """
                SELECT held_reason FROM outbound_recipients WHERE submission_id = ? AND status = 'held'
                ORDER BY position
                """, [.text(submissionID)]
            ).first?.text("held_reason").flatMap(HeldReason.init(rawValue:))
        }
    }
}
