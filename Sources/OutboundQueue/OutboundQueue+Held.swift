import SMTPOutcomes
import Storage

extension OutboundQueue {
    /// Why each of the submissions `submissionIDs` has recipients held, as recorded (its first held recipient's
    /// reason), by submission id, read at once; a submission none of whose recipients is held, or that does not
    /// exist, is absent.
    public func heldReasons(submissionIDs: [String]) async throws -> [String: HeldReason] {
        let wanted = Array(Set(submissionIDs))
        guard !wanted.isEmpty else { return [:] }
        return try await database.read { connection in
            var reasons: [String: HeldReason] = [:]
            var seen: Set<String> = []
            // In slices, each well under either backend's limit on bound parameters.
            for start in stride(from: 0, to: wanted.count, by: Self.heldReasonsSlice) {
                let slice = wanted[start..<min(start + Self.heldReasonsSlice, wanted.count)]
                let marks = Array(repeating: "?", count: slice.count).joined(separator: ", ")
                for row in try connection.query(
                    """
                    SELECT submission_id, held_reason FROM outbound_recipients
                    WHERE submission_id IN (\(marks)) AND status = 'held' ORDER BY submission_id, position
                    """, slice.map(SQLValue.text)
                ) {
                    guard let id = row.text("submission_id"), seen.insert(id).inserted else { continue }
                    reasons[id] = row.text("held_reason").flatMap(HeldReason.init(rawValue:))
                }
            }
            return reasons
        }
    }

    /// How many submission ids one read of ``heldReasons(submissionIDs:)`` binds.
    static let heldReasonsSlice = 500
}
