import MailStore
import Storage

/// Where the outbound queue puts every report to a sender (a delivery status notification: the bounce of recipients
/// that failed for good, the delay notice of recipients deferred long enough), in the same transaction as the
/// completion it reports, so that a crash loses neither or both: ``LocalDelivery`` implements it over the mail store,
/// on the queue's own connection.
public protocol SenderReportMailbox: Sendable {
    /// The mailbox of `sender` here, resolved before the queue's transaction (the directory is asked); nil when the
    /// sender has none (nothing to put a report in).
    /// - Throws: the directory's storage errors.
    func reportDestination(for sender: String) async throws -> SenderReportDestination?

    /// Stores `report` in `destination`'s inbox with the null reverse path on `connection`, inside the caller's
    /// transaction. Returns the new email's id, nil when the mailbox refuses it for good (full, or a report it cannot
    /// read): the caller records its completion without the report rather than retry it for ever.
    /// - Throws: storage errors: the caller's transaction rolls back, completion and report together.
    func storeReport(
        _ report: [UInt8], in destination: SenderReportDestination, now: Int64, on connection: any SQLConnection
    ) throws -> String?

    /// Tells whoever waits on `destination`'s mail that it changed, once the caller's transaction committed.
    func reportStored(in destination: SenderReportDestination)
}

/// A sender's mailbox as ``SenderReportMailbox/reportDestination(for:)`` found it: the store's recipient (address,
/// quota, holder for the arrivals observer).
public struct SenderReportDestination: Sendable, Equatable {
    /// The copy's recipient in the mail store.
    public var recipient: MailStore.Recipient

    /// - Parameter recipient: see the property.
    public init(recipient: MailStore.Recipient) {
        self.recipient = recipient
    }

    /// The mailbox's address.
    public var address: String { recipient.address }
}
