import CLibPQ

/// What a connection makes of PostgreSQL's notices (NOTICE, WARNING), which arrive beside a statement's result.
///
/// Most are informational ("relation already exists, skipping") and are dropped. One is not: a commit that waited
/// for its synchronous standby and had that wait canceled (a query cancel, `pg_cancel_backend`) returns success
/// with only
///
///     WARNING:  canceling wait for synchronous replication due to user request
///     DETAIL:  The transaction has already committed locally, but might not have been replicated to the standby.
///
/// (SQLSTATE 01000, raised by the server's `SyncRepWaitForLSN`). Such a commit may be lost at the next failover, so
/// it must fail like any write whose outcome is unknown. Pure: tested by feeding it the fields.
enum PostgresNotice {
    /// Whether a notice says the commit it came with is in doubt: SQLSTATE 01000 (a plain WARNING) from the wait for
    /// synchronous replication, known by its message or, whatever the server's `lc_messages`, by the routine that
    /// raised it.
    static func isCommitInDoubt(sqlState: String?, message: String?, routine: String?) -> Bool {
        guard sqlState == "01000" else { return false }
        if routine == "SyncRepWaitForLSN" { return true }
        guard let message else { return false }
        return message.hasPrefix("canceling wait for synchronous replication")
            || message.hasPrefix("canceling the wait for synchronous replication")
    }

    /// Collects what the notices of one connection said, between the statement that heard them and its check.
    /// `@unchecked Sendable` is not claimed: it lives and is used on its connection's queue only (libpq calls the
    /// receiver synchronously, from inside the call that reads the result).
    final class Receiver {
        /// A notice said the commit in progress is in doubt; cleared by ``takeInDoubt()``.
        private var inDoubt = false

        /// Hears one notice (libpq's `PQnoticeReceiver`).
        func receive(_ result: OpaquePointer) {
            func field(_ code: Character) -> String? {
                PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
            }
            if PostgresNotice.isCommitInDoubt(sqlState: field("C"), message: field("M"), routine: field("R")) {
                inDoubt = true
            }
        }

        /// Whether a commit in doubt was heard since the last call.
        func takeInDoubt() -> Bool {
            defer { inDoubt = false }
            return inDoubt
        }

        /// Installs `self` as `connection`'s notice receiver (libpq keeps it across `PQreset`).
        /// - Warning: `self` must outlive `connection`: libpq holds it unretained.
        func install(on connection: OpaquePointer) {
            PQsetNoticeReceiver(
                connection,
                { context, result in
                    guard let context, let result else { return }
                    Unmanaged<Receiver>.fromOpaque(context).takeUnretainedValue().receive(result)
                }, Unmanaged.passUnretained(self).toOpaque())
        }
    }
}
