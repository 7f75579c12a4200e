import Testing

@testable import SMTPServer

/// The `Received:` field the server adds to what it takes (RFC 5321 section 4.4).
@Suite("SMTP: the Received trace field")
struct SMTPReceivedFieldTests {
    @Test("one recipient: from the HELO name and the address, by this server, with ESMTP, for the recipient, when")
    func oneRecipient() {
        let envelope = SMTPEnvelope(
            mailFrom: "a@remote.test", recipients: ["alice@local.test"], remoteAddress: "203.0.113.9",
            heloName: "mail.remote.test")
        let field = SMTPReceivedField(envelope: envelope, hostname: "mx.local.test", time: 1_795_676_400)
        #expect(
            field.text
                == "Received: from mail.remote.test ([203.0.113.9])\r\n\tby mx.local.test (Postern) with ESMTP\r\n"
                + "\tfor <alice@local.test>;\r\n\tThu, 26 Nov 2026 07:00:00 +0000\r\n")
    }

    @Test("several recipients are not named; TLS, AUTH and HELO show in the protocol; IPv6 is a tagged literal")
    func protocolsAndAddresses() {
        var envelope = SMTPEnvelope(
            mailFrom: "", recipients: ["a@local.test", "b@local.test"], remoteAddress: "2001:db8::1",
            heloName: "[2001:db8::1]")
        let time: Int64 = 0
        #expect(
            SMTPReceivedField(envelope: envelope, hostname: "mx", time: time).text
                == "Received: from [2001:db8::1] ([IPv6:2001:db8::1])\r\n\tby mx (Postern) with ESMTP;\r\n"
                + "\tThu, 01 Jan 1970 00:00:00 +0000\r\n")
        envelope.secured = true
        #expect(SMTPReceivedField(envelope: envelope, hostname: "mx", time: time).text.contains("with ESMTPS;"))
        envelope.authenticatedAs = "token-id"
        let authenticated = SMTPReceivedField(envelope: envelope, hostname: "mx", time: time).text
        #expect(authenticated.contains("with ESMTPSA;") && !authenticated.contains("token-id"))
        envelope.extended = false
        #expect(SMTPReceivedField(envelope: envelope, hostname: "mx", time: time).text.contains("with SMTP;"))
    }

    @Test("a HELO name that is no domain is written unknown; an odd recipient is left out; one field, always")
    func hostileInputs() {
        for helo in ["bad name(", "a..b", "-x.test", "x)\r\n\tby evil", "[a]b]", String(repeating: "a", count: 300)] {
            let envelope = SMTPEnvelope(
                mailFrom: "", recipients: ["x y@local.test"], remoteAddress: "192.0.2.1", heloName: helo)
            let text = SMTPReceivedField(envelope: envelope, hostname: "mx", time: 0).text
            #expect(text.hasPrefix("Received: from unknown ([192.0.2.1])\r\n"), "\(helo)")
            #expect(!text.contains("for <"))
            // Every line after the first is a continuation: one header field.
            let lines = text.split(separator: "\r\n")
            #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("\t") })
        }
        let odd = SMTPEnvelope(mailFrom: "", recipients: [], remoteAddress: "not an address", heloName: "ok.test")
        #expect(SMTPReceivedField(envelope: odd, hostname: "mx", time: 0).text.contains("([unknown])"))
        // The server's own name too is cut to printable ASCII, as the greeting's.
        let named = SMTPReceivedField(envelope: odd, hostname: "mx.test\r\nX-Evil: 1", time: 0).text
        #expect(named.contains("\tby mx.testX-Evil:1 (Postern)") && !named.contains("\r\nX-Evil"))
    }
}
