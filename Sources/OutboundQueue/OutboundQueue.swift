import Foundation
import LeasedQueue
import MailDelivery
import Storage

/// The durable outbound queue (`migrations/*/0036_outbound_queue.sql`), shared by every instance over the same
/// database: the `EmailSubmission` records, each recipient's disposition, the message while a recipient waits, and the
/// addresses suppressed after a hard bounce.
///
/// A submission is recorded in one transaction (``record(_:limits:now:)``), so a submission acknowledged is a message
/// queued. An instance ``claim(now:limit:)``s due recipients by setting a short lease
/// (``OutboundQueueConfiguration/leaseSeconds``, a deadline and a token of its own; on PostgreSQL the rows are picked
/// with `FOR UPDATE SKIP LOCKED`, so concurrent claims never share a recipient), grouped one batch per message per
/// destination domain, hands each batch to the transport while it ``renew(_:now:)``s the lease, and
/// ``complete(_:_:now:)``s it under the same token: an attempt that outlived its lease was taken over by someone else
/// and records nothing. A dead instance's claims come back within one lease; on SQLite, one instance by construction,
/// the dispatcher also ``releaseAllLeases()`` at start.
/// Delivery is at least once: a crash between the remote server's `250` and the completion's commit sends again when
/// the lease runs out. Times are Unix seconds from the caller's clock.
///
/// Every commit that moves an account's `EmailSubmission` state (a record, a completion, a delete) is told to
/// ``onSubmissionChange`` with the sender's address, and on PostgreSQL notifies `postern_mail` with it (a trigger of
/// `0044_submission_envelope.sql`), so that the account's JMAP event streams on every instance push the new state.
public struct OutboundQueue: Sendable {
    let database: any SQLDatabase
    /// Retries, queue lifetime, suppression time, limits.
    public let configuration: OutboundQueueConfiguration
    /// How long a claim holds its recipients unless renewed, in seconds (``OutboundQueueConfiguration/leaseSeconds``).
    public var leaseSeconds: Int64 { Int64(configuration.leaseSeconds) }
    /// Signalled by every record that queues a recipient.
    public let wakeup: Wakeup
    /// Where and how a completion reports to the sender (bounces, delay notices); nil writes no report (tests of the
    /// rest).
    public let reports: SenderReports?
    /// Told the sender's address after each commit that moved its account's `EmailSubmission` state.
    let onSubmissionChange: @Sendable (_ sender: String) -> Void
    /// A number from -1 to 1 for each retry delay's jitter (``OutboundQueueConfiguration/retryJitter``).
    let jitter: @Sendable () -> Double

    /// A queue over a database migrated through `0036_outbound_queue.sql`.
    /// - Parameters:
    ///   - configuration: the queue's keys (the lease's among them).
    ///   - wakeup: what a record signals (the dispatcher waits on it).
    ///   - reports: the sender's mailbox and the reports' writer; the mailbox must write on this `database`.
    ///   - onSubmissionChange: told the sender's address after each commit that moved its account's
    ///     `EmailSubmission` state (the composition root wakes the account's event streams).
    ///   - jitter: a number from -1 to 1 per retry delay, which moves it by up to 10% either way; uniform by default,
    ///     a constant in tests that need the schedule exact.
    public init(
        database: any SQLDatabase, configuration: OutboundQueueConfiguration = OutboundQueueConfiguration(),
        wakeup: Wakeup = Wakeup(), reports: SenderReports? = nil,
        onSubmissionChange: @escaping @Sendable (_ sender: String) -> Void = { _ in },
        jitter: @escaping @Sendable () -> Double = { Double.random(in: -1...1) }
    ) {
        self.database = database
        self.configuration = configuration
        self.wakeup = wakeup
        self.reports = reports
        self.onSubmissionChange = onSubmissionChange
        self.jitter = jitter
    }

    /// The reply a queued recipient shows until an attempt ends.
    public static let queuedReply = RecipientState.queuedReply
    /// The reply of a recipient the operator deleted from the queue.
    public static let deletedReply = "554 5.3.0 deleted from the queue by the operator"

    /// The destination domain of `address`, lowercased (empty when it has no `@`).
    static func domain(of address: String) -> String {
        guard let at = address.lastIndex(of: "@") else { return "" }
        return address[address.index(after: at)...].lowercased()
    }

    /// The account's change sequence moved on by one; returns the new value.
    static func bump(_ accountID: String, _ connection: any SQLConnection) throws -> Int64 {
        try connection.run(
            """
            INSERT INTO outbound_account_states (account_id, seq) VALUES (?, 1)
            ON CONFLICT (account_id) DO UPDATE SET seq = outbound_account_states.seq + 1
            """, [.text(accountID)])
        return try connection.query(
            "SELECT seq FROM outbound_account_states WHERE account_id = ?", [.text(accountID)]
        ).first?.int("seq") ?? 1
    }

    /// Drops a submission's message once none of its recipients waits any more.
    static func dropContentIfDone(_ submissionID: String, _ connection: any SQLConnection) throws {
        try connection.run(
            """
            DELETE FROM outbound_contents WHERE submission_id = ? AND NOT EXISTS (
                SELECT 1 FROM outbound_recipients WHERE submission_id = ? AND status = 'queued')
            """, [.text(submissionID), .text(submissionID)])
    }
}
