import MIME
import MailDelivery
import PosternTestSupport
import SMTPOutcomes
import Testing

@testable import MailTransfer

/// The bounce a sender gets (RFC 3464 in RFC 6522's multipart/report): a known answer, and MIME's parser reading it
/// back (the three parts, the per-recipient fields, the original header without its body).
@Suite("Delivery status notifications")
struct DeliveryStatusNotificationTests {
    static let original = Array(
        ("From: Agent <agent@agents.test>\nTo: bob@far.test, nobody@far.test\nSubject: Quarterly\n\tfigures\n"
            + "Message-ID: <m1@agents.test>\n\nThe body, which is not returned.\n").utf8)
    static let outcomes = [
        OutboundOutcome(
            recipient: "nobody@far.test", status: .permanent("550 5.1.1 <nobody@far.test>: Recipient address rejected"),
            remoteHost: "mx.far.test"),
        OutboundOutcome(recipient: "gone@far.test", status: .permanent("550 no such user here")),
    ]

    static func report(expired: Bool = false, outcomes: [OutboundOutcome] = outcomes) -> [UInt8] {
        DeliveryStatusNotification(hostname: "MX.Postern.test").build(
            original: original, sender: "agent@agents.test", queueID: "Q42", arrivalDate: 1_795_602_199,
            outcomes: outcomes, expired: expired, now: 1_795_605_799)
    }

    @Test("known answer: headers, the human part, the delivery-status fields, the original header")
    func knownAnswer() {
        let expected = """
            From: Mail Delivery System <MAILER-DAEMON@mx.postern.test>
            To: <agent@agents.test>
            Subject: Undelivered Mail Returned to Sender
            Date: Wed, 25 Nov 2026 11:23:19 +0000
            Message-ID: <dsn.Q42@mx.postern.test>
            Auto-Submitted: auto-replied
            MIME-Version: 1.0
            Content-Type: multipart/report; report-type=delivery-status;
            \tboundary="=_postern-dsn-Q42"

            This is a MIME-encapsulated delivery status notification.

            --=_postern-dsn-Q42
            Content-Type: text/plain; charset=utf-8
            Content-Description: Notification

            This is the mail system at mx.postern.test.

            Your message could not be delivered to the recipients below; the receiving
            servers refused it permanently.

            Subject of the message: Quarterly figures

            <nobody@far.test>: 550 5.1.1 <nobody@far.test>: Recipient address rejected
            <gone@far.test>: 550 no such user here

            --=_postern-dsn-Q42
            Content-Type: message/delivery-status
            Content-Description: Delivery report

            Reporting-MTA: dns; mx.postern.test
            X-Postern-Queue-ID: Q42
            Arrival-Date: Wed, 25 Nov 2026 10:23:19 +0000

            Final-Recipient: rfc822; nobody@far.test
            Action: failed
            Status: 5.1.1
            Remote-MTA: dns; mx.far.test
            Diagnostic-Code: smtp; 550 5.1.1 <nobody@far.test>: Recipient address rejected
            Last-Attempt-Date: Wed, 25 Nov 2026 11:23:19 +0000

            Final-Recipient: rfc822; gone@far.test
            Action: failed
            Status: 5.0.0
            Diagnostic-Code: smtp; 550 no such user here
            Last-Attempt-Date: Wed, 25 Nov 2026 11:23:19 +0000

            --=_postern-dsn-Q42
            Content-Type: text/rfc822-headers
            Content-Description: Undelivered Message Headers

            From: Agent <agent@agents.test>
            To: bob@far.test, nobody@far.test
            Subject: Quarterly
            \tfigures
            Message-ID: <m1@agents.test>

            --=_postern-dsn-Q42--

            """.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(String(decoding: Self.report(), as: UTF8.self) == expected)
    }

    @Test("MIME reads it back: from the mailer-daemon, the notification as text, the report and the header as parts")
    func parsesBack() throws {
        let parsed = try MIMEParser.parse(Self.report())
        #expect(parsed.from == [MailAddress(name: "Mail Delivery System", email: "MAILER-DAEMON@mx.postern.test")])
        #expect(parsed.to.map(\.email) == ["agent@agents.test"])
        #expect(parsed.subject == "Undelivered Mail Returned to Sender")
        #expect(parsed.messageID == "dsn.Q42@mx.postern.test")
        #expect(parsed.textBody?.contains("<gone@far.test>: 550 no such user here") == true)
        #expect(parsed.attachments.map(\.contentType) == ["message/delivery-status", "text/rfc822-headers"])
        let status = String(decoding: try #require(parsed.attachments.first).data, as: UTF8.self)
        #expect(status.contains("Final-Recipient: rfc822; nobody@far.test\r\nAction: failed\r\nStatus: 5.1.1\r\n"))
        let headers = String(decoding: try #require(parsed.attachments.last).data, as: UTF8.self)
        #expect(headers.contains("Message-ID: <m1@agents.test>"))
        #expect(!headers.contains("The body"))
    }

    @Test("an expired message: the text says so; a temporary last reply becomes its permanent status (4.x.y → 5.x.y)")
    func expired() {
        let outcome = OutboundOutcome(
            recipient: "slow@far.test", status: .failed(.client(.connect("cannot connect to mx.far.test"))))
        let text = String(decoding: Self.report(expired: true, outcomes: [outcome]), as: UTF8.self)
        #expect(text.contains("before it expired\r\nfrom the queue; no further attempts will be made."))
        #expect(text.contains("Status: 5.4.1\r\n"))
        #expect(text.contains("Diagnostic-Code: smtp; 451 4.4.1 cannot connect to mx.far.test\r\n"))
    }

    @Test("a recipient or reply with a line break cannot add fields to the report")
    func noInjection() {
        let outcome = OutboundOutcome(
            recipient: "a@far.test\r\nAction: delivered", status: .permanent("550 5.1.1 x\r\nStatus: 2.0.0"))
        let text = String(decoding: Self.report(outcomes: [outcome]), as: UTF8.self)
        #expect(!text.contains("\r\nAction: delivered") && !text.contains("\r\nStatus: 2.0.0"))
    }

    @Test("a delay notice: Action delayed, the reply's 4.x.y Status, Will-Retry-Until, a subject and id of its own")
    func delayNotice() throws {
        let outcome = OutboundOutcome(
            recipient: "later@far.test", status: .temporary("450 4.2.0 <later@far.test>: mailbox busy"),
            remoteHost: "mx.far.test")
        let report = DeliveryStatusNotification(hostname: "mx.postern.test").buildDelayNotice(
            original: Self.original, sender: "agent@agents.test", queueID: "Q42", arrivalDate: 1_795_602_199,
            outcomes: [outcome], willRetryUntil: 1_796_034_199, now: 1_795_616_599)
        let parsed = try MIMEParser.parse(report)
        #expect(parsed.subject == "Delayed Mail (still being retried)")
        #expect(parsed.messageID == "delay.Q42@mx.postern.test")
        #expect(parsed.textBody?.contains("will keep trying until Mon, 30 Nov 2026 10:23:19 +0000") == true)
        let status = String(decoding: try #require(parsed.attachments.first).data, as: UTF8.self)
        let record = [
            "Final-Recipient: rfc822; later@far.test", "Action: delayed", "Status: 4.2.0", "Remote-MTA: dns; mx.far.test",
            "Diagnostic-Code: smtp; 450 4.2.0 <later@far.test>: mailbox busy",
            "Last-Attempt-Date: Wed, 25 Nov 2026 14:23:19 +0000", "Will-Retry-Until: Mon, 30 Nov 2026 10:23:19 +0000",
        ]
        #expect(status.contains(record.map { $0 + "\r\n" }.joined()))
        // A bounce says nothing of retrying.
        #expect(!String(decoding: Self.report(), as: UTF8.self).contains("Will-Retry-Until"))
    }
}
