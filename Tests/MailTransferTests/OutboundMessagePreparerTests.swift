import AuthCrypto
import MailAuth
import Testing

@testable import MailTransfer

/// The message as it leaves: known answers for the trace line, Bcc removal, Date and Message-ID, line ends; and the
/// two DKIM signatures checked by MailAuth's verifier from the published records.
@Suite("Outbound message preparation")
struct OutboundMessagePreparerTests {
    static let now: Int64 = 1_795_602_199
    static let date = "Wed, 25 Nov 2026 10:23:19 +0000"
    static let preparer = OutboundMessagePreparer(hostname: "MX.Postern.test")
    static let sender = "agent@agents.test"

    static let submitted = Array(
        ("From: Agent <agent@agents.test>\nTo: bob@far.test\nBcc: secret@hidden.test,\n  other@hidden.test\n"
            + "Subject: Hi\nBCC:\n\nHello\n.dot\nBcc: not a header\n").utf8)

    @Test("known answer: Received on top, Bcc fields (folded, any case) gone, Date and Message-ID added, CRLF")
    func knownAnswer() throws {
        let prepared = try Self.preparer.prepare(Self.submitted, queueID: "Q1-7f", sender: Self.sender, now: Self.now, signer: nil)
        let expected =
            "Received: by mx.postern.test (Postern) with HTTP id Q1-7f;\r\n\t\(Self.date)\r\n"
            + "From: Agent <agent@agents.test>\r\nTo: bob@far.test\r\nSubject: Hi\r\n"
            + "Date: \(Self.date)\r\nMessage-ID: <Q1-7f@mx.postern.test>\r\n\r\nHello\r\n.dot\r\nBcc: not a header\r\n"
        #expect(String(decoding: prepared, as: UTF8.self) == expected)
    }

    @Test("a message's own Date and Message-ID are kept; a queue id unfit for a Message-ID is cleaned")
    func keepsOwnFields() throws {
        let own = Array(
            "From: agent@agents.test\r\nDate: Tue, 24 Nov 2026 09:00:00 +0100\r\nMessage-ID: <own@agents.test>\r\n\r\nx".utf8)
        let prepared = String(
            decoding: try Self.preparer.prepare(own, queueID: "q<1>", sender: Self.sender, now: Self.now, signer: nil), as: UTF8.self)
        #expect(
            prepared
                == "Received: by mx.postern.test (Postern) with HTTP id q1;\r\n\t\(Self.date)\r\n"
                + "From: agent@agents.test\r\nDate: Tue, 24 Nov 2026 09:00:00 +0100\r\nMessage-ID: <own@agents.test>\r\n\r\nx")
        let bare = String(
            decoding: try Self.preparer.prepare(
                Array("From: agent@agents.test\r\nSubject: s\r\n\r\n".utf8), queueID: "<>", sender: Self.sender, now: 0,
                signer: nil),
            as: UTF8.self)
        #expect(bare.contains("\r\nDate: Thu, 01 Jan 1970 00:00:00 +0000\r\nMessage-ID: <postern@mx.postern.test>\r\n"))
    }

    @Test("signed with RSA-SHA256 and Ed25519-SHA256; both verify; Bcc is not among the signed fields")
    func signed() async throws {
        let signer = DKIMSigner(
            domain: "agents.test",
            keys: [
                DKIMSigningKey(selector: "r1", rsa: try RSAPrivateKey.generate()),
                DKIMSigningKey(selector: "e1", ed25519: try Ed25519PrivateKey.generate()),
            ], now: { Self.now })
        let prepared = try Self.preparer.prepare(Self.submitted, queueID: "Q1", sender: Self.sender, now: Self.now, signer: signer)
        let text = String(decoding: prepared, as: UTF8.self)
        #expect(
            text.hasPrefix(
                "Received: by mx.postern.test (Postern) with HTTP id Q1;\r\n\t\(Self.date)\r\nDKIM-Signature:"))
        #expect(text.components(separatedBy: "DKIM-Signature:").count == 3)
        #expect(text.contains("a=rsa-sha256") && text.contains("a=ed25519-sha256"))
        #expect(!text.lowercased().contains("hidden.test"))
        var records: [String: [String]] = [:]
        for key in signer.keys { records[key.txtRecordName(domain: "agents.test")] = [key.txtRecordValue] }
        let outcomes = await DKIMVerifier(dns: TableDNS(txtRecords: records), now: { Self.now }).verify(prepared)
        #expect(outcomes.map(\.result) == [.pass, .pass])
        #expect(outcomes.map(\.selector) == ["r1", "e1"])
        // A field changed on the way breaks both.
        let altered = Array(text.replacingOccurrences(of: "Subject: Hi", with: "Subject: Ho").utf8)
        let broken = await DKIMVerifier(dns: TableDNS(txtRecords: records), now: { Self.now }).verify(altered)
        #expect(broken.map(\.result) == [.fail, .fail])
    }
}

/// The preparer's own check of who the message says it is from, on the bytes that leave (issue 49): a bare CR that
/// line-end repair turns into a line end cannot put another From under the sender's DKIM signature.
@Suite("Outbound message preparation: the originators of what leaves")
struct OutboundPreparerOriginatorTests {
    static let preparer = OutboundMessagePreparer(hostname: "mx.postern.test")

    @Test(
        "a From, Sender, Resent-From or Resent-Sender other than the envelope sender is refused before signing",
        arguments: [
            "From: ceo@agents.test\rX-Hide: <own@agents.test>\r\n",
            "From: <ceo@agents.test> <own@agents.test>\r\n",
            "From: <ceo@agents.test> \"<own@agents.test>\"\r\n",
            "From: own@agents.test\r\nSender: ceo@agents.test\r\n",
            "From: own@agents.test\r\nFrom: ceo@agents.test\r\n",
            // Resent-From and Resent-Sender are originators too (RFC 5322 3.6.6; issue 81).
            "From: own@agents.test\r\nResent-From: ceo@agents.test\r\n",
            "From: own@agents.test\r\nResent-From: own@agents.test\r\nResent-Sender: ceo@agents.test\r\n",
            "Subject: no From at all\r\n",
            // The sender only under Unicode's case folding (issue 66): KELVIN SIGN is not a `k`.
            "From: \u{212A}ate@agents.test\r\n",
            "From: kate@agents.test\r\nSender: \u{212A}ate@agents.test\r\n",
        ])
    func refused(_ header: String) throws {
        let content = Array((header + "To: bob@far.test\r\n\r\nbody\r\n").utf8)
        #expect(throws: OutboundPreparationError.self) {
            let sender = header.contains("ate@") ? "kate@agents.test" : "own@agents.test"
            _ = try Self.preparer.prepare(content, queueID: "Q1", sender: sender, now: 0, signer: nil)
        }
    }

    @Test("the sender's own From, in another case and with bare LF line ends, leaves")
    func ownFromLeaves() throws {
        let content = Array("From: Own <OWN@agents.test>\nSender: own@agents.test\nTo: bob@far.test\n\nbody\n".utf8)
        let prepared = try Self.preparer.prepare(content, queueID: "Q1", sender: "own@agents.test", now: 0, signer: nil)
        #expect(String(decoding: prepared, as: UTF8.self).contains("\r\nFrom: Own <OWN@agents.test>\r\n"))
    }
}
