import MIME
import MailStore
import Storage

extension LocalDelivery: SenderReportMailbox {
    /// The sender's mailbox when the directory holds it (or a subaddress of one); nil otherwise.
    public func reportDestination(for sender: String) async throws -> SenderReportDestination? {
        guard case .local(let recipient) = try await resolve(sender) else { return nil }
        return SenderReportDestination(recipient: MailStore.Recipient(recipient))
    }

    /// Parses `report` and stores it in `destination`'s inbox on `connection` (the caller's transaction), with the
    /// null reverse path; nil when its quota is full or the report passes a MIME limit.
    public func storeReport(
        _ report: [UInt8], in destination: SenderReportDestination, now: Int64, on connection: any SQLConnection
    ) throws -> String? {
        let message: NewMailMessage
        do {
            message = NewMailMessage(try MIMEParser.parse(report, limits: limits), envelopeFrom: "", raw: report)
        } catch {
            return nil
        }
        do {
            return try store.deliver(message, to: destination.recipient, folder: .inbox, now: now, on: connection)
        } catch MailStoreError.quotaExceeded {
            return nil
        }
    }

    /// Announces `destination`'s address on the store's change stream.
    public func reportStored(in destination: SenderReportDestination) {
        store.changes.announce([destination.address])
    }
}
