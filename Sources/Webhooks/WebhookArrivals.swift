import MailStore
import Storage

/// The webhook queue's end of the mail store's delivery port: every inbox copy delivered to a held recipient queues
/// one `email.received` event for its holder's active webhook, in the delivery's own transaction, so that a message
/// committed is an event committed (a restart or `kill -9` between acceptance and delivery loses nothing) and a
/// refused message leaves no event. The holder is the one the directory named when the delivery resolved the
/// recipient; nothing here asks who owns an address.
public struct WebhookArrivals: MailArrivalObserver {
    public init() {}

    /// Queues the event of `arrival` (`evt_<message id>`, due at once) when its holder has an active webhook.
    /// - Throws: storage errors, which fail the delivery.
    public func arrived(_ arrival: MailArrival, in connection: any SQLConnection) throws {
        guard
            let webhook = try connection.query(
                "SELECT id FROM mailbox_webhooks WHERE owner_id = ? AND status = 'active'",
                [.text(arrival.holder.ownerID)]
            ).first?.text("id")
        else { return }
        _ = try connection.run(
            """
            INSERT INTO mailbox_webhook_events (id, webhook_id, event_type, message_id, address, account_id, from_json,
                envelope_from, subject, preview, size, received_at, received_seq, next_attempt_ms)
                VALUES (?, ?, 'email.received', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text("evt_" + arrival.messageID), .text(webhook), .text(arrival.messageID), .text(arrival.address),
                arrival.holder.accountID.map(SQLValue.text) ?? .null, .text(arrival.fromJSON),
                .text(arrival.envelopeFrom), arrival.subject.map(SQLValue.text) ?? .null, .text(arrival.preview),
                .integer(arrival.size), .integer(arrival.receivedAt), .integer(arrival.arrivalOrder),
                .integer(arrival.receivedAt * 1000),
            ])
    }
}
