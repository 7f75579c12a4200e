import Storage

/// Which owners the operator answers for (`owners.approved_at`, migration 0040): an owner the operator made
/// (`postern owner create`) is approved as they are made; one who signed up at `/owner/sign-up` waits until the
/// operator approves them (`postern owner approve`). With `POSTERN_OUTBOUND_SENDERS=owned` only an approved owner's
/// inboxes send mail outside this server, so open sign-up does not make anyone who reaches it a sender.
///
/// Read fresh on every question: an approval withdrawn stops the owner's next submission.
public struct OwnerApprovals: Sendable {
    let database: any SQLDatabase

    /// - Parameter database: a database with migrations 0016 and 0040 applied.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// Whether the owner with id `ownerID` is approved; false for an owner that does not exist.
    /// - Throws: storage errors.
    public func isApproved(ownerID: String) async throws -> Bool {
        try await database.read { connection in
            try connection.query("SELECT approved_at FROM owners WHERE id = ?", [.text(ownerID)])
                .first?.int("approved_at") != nil
        }
    }

    /// Approves the owner with `email` as of `now` (an approval kept keeps its first time), or withdraws the approval.
    /// - Returns: false when no owner has that email.
    /// - Throws: storage errors.
    public func setApproved(email: String, _ approved: Bool, now: Int64) async throws -> Bool {
        guard let email = OwnerCredentials.normalizedEmail(email) else { return false }
        return try await database.write { connection in
            approved
                ? try connection.run(
                    "UPDATE owners SET approved_at = COALESCE(approved_at, ?) WHERE email = ?",
                    [.integer(now), .text(email)]) > 0
                : try connection.run("UPDATE owners SET approved_at = NULL WHERE email = ?", [.text(email)]) > 0
        }
    }
}
