import MailDelivery
import SMTPOutcomes
import Time

/// A delivery status notification (RFC 3464) in a `multipart/report` (RFC 6522, formerly RFC 3462): what the
/// outbound queue puts in a sender's inbox when recipients failed for good or the message outlived the queue, and the
/// delay notice (`Action: delayed`, `Will-Retry-Until`) when recipients are still deferred after a while.
/// Pure: the original message, its outcomes and the clock in, the report's bytes out.
///
/// Three parts: a human-readable `text/plain` explanation; the `message/delivery-status` fields (per message:
/// `Reporting-MTA`, `Arrival-Date`; per failed recipient: `Final-Recipient`, `Action: failed`, `Status`, `Remote-MTA`
/// when a host answered, `Diagnostic-Code: smtp;` with its reply, `Last-Attempt-Date`); and the original message's
/// header (`text/rfc822-headers`: enough to recognise it, without returning a body the sender already has).
public struct DeliveryStatusNotification: Sendable {
    /// This host's public name: the `Reporting-MTA` and the mailer-daemon's domain.
    public let hostname: String

    /// A builder for `hostname`.
    public init(hostname: String) {
        self.hostname = hostname.lowercased()
    }

    /// The report's author: `MAILER-DAEMON@<hostname>`.
    public var mailerDaemon: String { "MAILER-DAEMON@\(hostname)" }

    /// The notification's text (CRLF line ends), to deliver to `sender`'s inbox with the null reverse path.
    /// - Parameters:
    ///   - original: the message as submitted.
    ///   - sender: the envelope sender the report goes to.
    ///   - queueID: the queue's id of the message (the report's `Message-ID` and the boundary derive from it).
    ///   - arrivalDate: when the message was queued, Unix seconds.
    ///   - outcomes: the recipients to report (failed ones; any others are reported with their kind's action).
    ///   - expired: the message outlived the queue (the text says so).
    ///   - now: Unix seconds: the report's `Date` and each `Last-Attempt-Date`.
    public func build(
        original: [UInt8], sender: String, queueID: String, arrivalDate: Int64, outcomes: [OutboundOutcome],
        expired: Bool = false, now: Int64
    ) -> [UInt8] {
        report(
            original: original, sender: sender, queueID: queueID, arrivalDate: arrivalDate, outcomes: outcomes,
            expired: expired, willRetryUntil: nil, now: now)
    }

    /// The delayed-delivery notice's text (CRLF line ends, RFC 3464 `Action: delayed`, as Postfix's
    /// `delay_warning_time` sends): the recipients below are still being tried, until `willRetryUntil`; no action is
    /// needed. Its `Message-ID` differs from the bounce's, so a later bounce is not taken for a copy of it.
    /// - Parameters:
    ///   - original: the message as submitted.
    ///   - sender: the envelope sender the notice goes to.
    ///   - queueID: the queue's id of the message.
    ///   - arrivalDate: when the message was queued, Unix seconds.
    ///   - outcomes: the recipients still deferred, with their last reply.
    ///   - willRetryUntil: when the queue gives up (the queue's lifetime from `arrivalDate`), Unix seconds: each
    ///     recipient's `Will-Retry-Until`.
    ///   - now: Unix seconds: the notice's `Date` and each `Last-Attempt-Date`.
    public func buildDelayNotice(
        original: [UInt8], sender: String, queueID: String, arrivalDate: Int64, outcomes: [OutboundOutcome],
        willRetryUntil: Int64, now: Int64
    ) -> [UInt8] {
        report(
            original: original, sender: sender, queueID: queueID, arrivalDate: arrivalDate, outcomes: outcomes,
            expired: false, willRetryUntil: willRetryUntil, now: now)
    }

    /// A bounce, or with `willRetryUntil` a delay notice.
    private func report(
        original: [UInt8], sender: String, queueID: String, arrivalDate: Int64, outcomes: [OutboundOutcome],
        expired: Bool, willRetryUntil: Int64?, now: Int64
    ) -> [UInt8] {
        let delayed = willRetryUntil != nil
        let local = OutboundMessagePreparer.messageIDLocalPart(queueID)
        let boundary = "=_postern-dsn-\(local)"
        let headers = Self.header(of: OutboundMessagePreparer.crlf(original))
        let subjectLine = Self.originalSubject(headers)
        var text = ""
        text += "From: Mail Delivery System <\(mailerDaemon)>\r\n"
        text += "To: <\(Self.safe(sender))>\r\n"
        text += delayed
            ? "Subject: Delayed Mail (still being retried)\r\n" : "Subject: Undelivered Mail Returned to Sender\r\n"
        text += "Date: \(RFC5322Date.format(now))\r\n"
        text += "Message-ID: <\(delayed ? "delay" : "dsn").\(local)@\(hostname)>\r\n"
        text += "Auto-Submitted: auto-replied\r\n"
        text += "MIME-Version: 1.0\r\n"
        text += "Content-Type: multipart/report; report-type=delivery-status;\r\n\tboundary=\"\(boundary)\"\r\n"
        text += "\r\n"
        text += "This is a MIME-encapsulated delivery status notification.\r\n"
        text += "\r\n--\(boundary)\r\n"
        text += "Content-Type: text/plain; charset=utf-8\r\n"
        text += "Content-Description: Notification\r\n"
        text += "\r\n"
        text += "This is the mail system at \(hostname).\r\n\r\n"
        if let willRetryUntil {
            text += "Your message has not yet been delivered to the recipients below; the mail system\r\n"
            text += "will keep trying until \(RFC5322Date.format(willRetryUntil)) and tell you if it gives up.\r\n"
            text += "No action is needed.\r\n"
        } else if expired {
            text += "Your message could not be delivered to the recipients below before it expired\r\n"
            text += "from the queue; no further attempts will be made.\r\n"
        } else {
            text += "Your message could not be delivered to the recipients below; the receiving\r\n"
            text += "servers refused it permanently.\r\n"
        }
        if let subjectLine { text += "\r\nSubject of the message: \(subjectLine)\r\n" }
        text += "\r\n"
        for outcome in outcomes {
            text += "<\(Self.safe(outcome.recipient))>: \(outcome.reply?.description ?? "no reply")\r\n"
        }
        text += "\r\n--\(boundary)\r\n"
        text += "Content-Type: message/delivery-status\r\n"
        text += "Content-Description: Delivery report\r\n"
        text += "\r\n"
        text += "Reporting-MTA: dns; \(hostname)\r\n"
        text += "X-Postern-Queue-ID: \(local)\r\n"
        text += "Arrival-Date: \(RFC5322Date.format(arrivalDate))\r\n"
        for outcome in outcomes {
            text += "\r\n"
            text += "Final-Recipient: rfc822; \(Self.safe(outcome.recipient))\r\n"
            text += "Action: \(Self.action(outcome.status))\r\n"
            text += "Status: \(Self.status(of: outcome, expired: expired))\r\n"
            if let host = outcome.remoteHost { text += "Remote-MTA: dns; \(Self.safe(host))\r\n" }
            if let reply = outcome.reply { text += "Diagnostic-Code: smtp; \(reply)\r\n" }
            text += "Last-Attempt-Date: \(RFC5322Date.format(now))\r\n"
            if let willRetryUntil { text += "Will-Retry-Until: \(RFC5322Date.format(willRetryUntil))\r\n" }
        }
        text += "\r\n--\(boundary)\r\n"
        text += "Content-Type: text/rfc822-headers\r\n"
        text += "Content-Description: Undelivered Message Headers\r\n"
        text += "\r\n"
        return Array(text.utf8) + headers + Array("\r\n--\(boundary)--\r\n".utf8)
    }

    /// `failed`, `delayed` or `delivered` (RFC 3464 §2.3.3).
    static func action(_ status: RecipientStatus) -> String {
        switch status {
        case .failed, .held: "failed"
        case .deferred, .queued: "delayed"
        case .delivered: "delivered"
        }
    }

    /// The RFC 3463 status: the reply's enhanced code (of its class, as ``SMTPReply`` keeps it), else one made from
    /// the status (`5.0.0`, `4.0.0`, `2.0.0`); a message that expired is its last `4.x.y` made permanent (`5.x.y`),
    /// `5.4.7` without one.
    static func status(of outcome: OutboundOutcome, expired: Bool) -> String {
        let fallback: String =
            switch outcome.status {
            case .failed, .held: expired ? "5.4.7" : "5.0.0"
            case .deferred, .queued: "4.0.0"
            case .delivered: "2.0.0"
            }
        guard let enhanced = outcome.reply?.enhanced else { return fallback }
        if expired, case .failed = outcome.status { return enhanced.permanent.description }
        return enhanced.description
    }

    /// The original header section (up to its empty line), at most 64 KiB of it, ending CRLF.
    static func header(of message: [UInt8]) -> [UInt8] {
        var index = 0
        while index + 1 < message.count {
            if message[index] == 13 && message[index + 1] == 10 {
                if index == 0 || (index >= 2 && message[index - 2] == 13 && message[index - 1] == 10) {
                    return Array(message[..<index].prefix(64 * 1024))
                }
            }
            index += 1
        }
        var whole = Array(message.prefix(64 * 1024))
        if !(whole.count >= 2 && whole[whole.count - 2] == 13 && whole[whole.count - 1] == 10) { whole += [13, 10] }
        return whole
    }

    /// The original `Subject`, unfolded, when it has one.
    static func originalSubject(_ header: [UInt8]) -> String? {
        let fields = OutboundMessagePreparer.split(header + [13, 10]).fields
        guard let field = fields.first(where: { $0.name.lowercased() == "subject" }) else { return nil }
        let value = safe(String(field.text.drop { $0 != ":" }.dropFirst()))
        let unfolded = value.split(whereSeparator: { $0 == " " }).joined(separator: " ")
        return unfolded.isEmpty ? nil : unfolded
    }

    /// Text safe on one header line: control characters become spaces.
    static func safe(_ text: String) -> String {
        SMTPReply.oneLine(text)
    }
}
