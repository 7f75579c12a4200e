import SMTPOutcomes

/// What the outbound queue hands the transport: one message for the recipients of one destination domain, carried
/// on one connection (Postfix's "one delivery per destination").
public struct OutboundBatch: Sendable, Equatable {
    /// The queue's id of the message.
    public var messageID: String
    /// The envelope sender (`MAIL FROM`): the submitting account's address.
    public var sender: String
    /// The destination domain, lowercased: every recipient below is at it.
    public var domain: String
    /// The recipients at ``domain``, in the order submitted.
    public var recipients: [String]
    /// The message as submitted (before any `Received` line or DKIM signature is added).
    public var content: [UInt8]
    /// How many attempts were made before this one.
    public var attempts: Int

    /// - Parameters: see the properties.
    public init(messageID: String, sender: String, domain: String, recipients: [String], content: [UInt8], attempts: Int) {
        self.messageID = messageID
        self.sender = sender
        self.domain = domain
        self.recipients = recipients
        self.content = content
        self.attempts = attempts
    }
}

/// What became of one recipient of an ``OutboundBatch``.
public struct OutboundOutcome: Sendable, Equatable {
    /// The recipient, as in the batch.
    public var recipient: String
    /// Delivered with the remote reply, deferred or failed with why (a server's reply and the command it answered,
    /// the SMTP client's failure, or Postern's own decision such as no mail exchanger). Never queued or held.
    public var status: RecipientStatus
    /// The host that answered, when one did (for the DSN's `Remote-MTA`).
    public var remoteHost: String?

    /// - Parameters: see the properties.
    public init(recipient: String, status: RecipientStatus, remoteHost: String? = nil) {
        self.recipient = recipient
        self.status = status
        self.remoteHost = remoteHost
    }

    /// The reply to show (`deliveryStatus`, the operator's listing): the remote one, or Postern's own account of a
    /// failure that had none (`451 4.4.1 cannot connect to mx.example.com: ...`), in the same shape.
    public var reply: SMTPReply? {
        switch status {
        case .queued, .held: nil
        case .delivered(let reply): reply
        case .deferred(let why), .failed(let why): why.reply
        }
    }
}

/// Carries an ``OutboundBatch`` to its destination: straight to the domain's mail exchangers, or through a relay.
/// Implementations never throw: every failure is an ``OutboundOutcome`` per recipient.
public protocol OutboundTransport: Sendable {
    /// Delivers `batch`, one outcome per recipient, in the batch's order.
    func deliver(_ batch: OutboundBatch) async -> [OutboundOutcome]
    /// Delivers `batches`, all for one destination domain, over one connection where it can (the queue's connection
    /// reuse); one list of outcomes per batch, in order. `settled` is told a batch's outcomes (its index, its
    /// outcomes) as soon as they are final, while the connection goes on with the next, so the queue can record a
    /// delivery before a later message's trouble (or a crash) keeps it unrecorded; it may be told nothing. A default
    /// delivers them one after another and tells `settled` of each as it ends.
    func deliver(_ batches: [OutboundBatch], settled: @escaping OutboundSettled) async -> [[OutboundOutcome]]
}

/// Told the final outcomes of one batch of a connection (its index among the connection's batches) before the
/// connection ends; called on whatever thread carries the connection.
public typealias OutboundSettled = @Sendable (Int, [OutboundOutcome]) -> Void

extension OutboundTransport {
    /// Each batch on its own, one after another.
    public func deliver(_ batches: [OutboundBatch], settled: @escaping OutboundSettled) async -> [[OutboundOutcome]] {
        var outcomes: [[OutboundOutcome]] = []
        for (index, batch) in batches.enumerated() {
            let delivered = await deliver(batch)
            settled(index, delivered)
            outcomes.append(delivered)
        }
        return outcomes
    }

    /// ``deliver(_:settled:)`` without early word.
    public func deliver(_ batches: [OutboundBatch]) async -> [[OutboundOutcome]] {
        await deliver(batches, settled: { _, _ in })
    }
}
