import Testing

@testable import SMTPServer

/// AUTH PLAIN and LOGIN on a listener that requires authentication (the SMTP sandbox), through the pure session
/// machine: whole and byte by byte, with a sink that knows one password, `tm_pro_good`.
@Suite("SMTP AUTH machine")
struct SMTPAuthMachineTests {
    static func submission(_ c: inout SMTPServerConfiguration) { c.requiresAuthentication = true }
    /// base64 of `\0any\0tm_pro_good` and of `\0any\0tm_pro_bad`.
    static let goodPlain = "AGFueQB0bV9wcm9fZ29vZA=="
    static let badPlain = "AGFueQB0bV9wcm9fYmFk"
    /// base64 of `\0any\0tm_pro_once`.
    static let oncePlain = "AGFueQB0bV9wcm9fb25jZQ=="

    @Test("PLAIN with an initial response on loopback, then a message that carries the identity")
    func plainInitialResponse() {
        let c = Conversation.both(
            "EHLO c\r\nAUTH PLAIN \(Self.goodPlain)\r\nMAIL FROM:<a@x.test>\r\nRCPT TO:<alice@local.test>\r\n"
                + "DATA\r\nhi\r\n.\r\nQUIT\r\n", peer: "127.0.0.1", Self.submission)
        #expect(c.lines.contains("250-AUTH PLAIN LOGIN"))
        #expect(c.lines.contains("235 2.7.0 Authentication successful"))
        #expect(c.deliveries.first?.authenticatedAs == "user-1")
        #expect(c.deliveries.first?.heloName == "c")
    }

    @Test("PLAIN with the response on its own line, and LOGIN's two prompts")
    func challenges() {
        let plain = Conversation.both(
            "EHLO c\r\nAUTH PLAIN\r\n\(Self.goodPlain)\r\n", peer: "::1", Self.submission)
        #expect(plain.lines.suffix(2) == ["334 ", "235 2.7.0 Authentication successful"])
        // LOGIN: "any", then "tm_pro_good".
        let login = Conversation.both(
            "EHLO c\r\nAUTH LOGIN\r\nYW55\r\ndG1fcHJvX2dvb2Q=\r\nMAIL FROM:<a@x.test>\r\n", peer: "127.0.0.1",
            Self.submission)
        #expect(
            login.lines.suffix(4) == [
                "334 VXNlcm5hbWU6", "334 UGFzc3dvcmQ6", "235 2.7.0 Authentication successful", "250 2.1.0 Ok",
            ])
        let loginInitial = Conversation.both(
            "EHLO c\r\nAUTH LOGIN YW55\r\ndG1fcHJvX2dvb2Q=\r\n", peer: "127.0.0.1", Self.submission)
        #expect(loginInitial.lines.suffix(2) == ["334 UGFzc3dvcmQ6", "235 2.7.0 Authentication successful"])
    }

    @Test("A wrong token is 535 and MAIL stays refused with 530")
    func wrongToken() {
        let c = Conversation.both(
            "EHLO c\r\nAUTH PLAIN \(Self.badPlain)\r\nMAIL FROM:<a@x.test>\r\n", peer: "127.0.0.1", Self.submission)
        #expect(
            c.lines.suffix(2) == ["535 5.7.8 Authentication credentials invalid", "530 5.7.0 Authentication required"])
        #expect(c.deliveries.isEmpty)
    }

    @Test("The third failed AUTH is answered 421 4.7.0 and the session closes; nothing after it is read")
    func tooManyFailedAuthentications() {
        let c = Conversation.both(
            "EHLO c\r\nAUTH PLAIN \(Self.badPlain)\r\nAUTH LOGIN\r\nYW55\r\ndG1fcHJvX2JhZA==\r\n"
                + "AUTH PLAIN \(Self.badPlain)\r\nAUTH PLAIN \(Self.goodPlain)\r\nMAIL FROM:<a@x.test>\r\n",
            peer: "127.0.0.1", Self.submission)
        #expect(
            Array(c.lines.suffix(5)) == [
                "535 5.7.8 Authentication credentials invalid", "334 VXNlcm5hbWU6", "334 UGFzc3dvcmQ6",
                "535 5.7.8 Authentication credentials invalid",
                "421 4.7.0 Error: too many failed authentication attempts",
            ])
        #expect(c.ended)
        #expect(!c.replies.contains("235"))
        // Two failures and then the right token: the session goes on; the limit is configurable.
        let twice = Conversation.both(
            "EHLO c\r\nAUTH PLAIN \(Self.badPlain)\r\nAUTH PLAIN \(Self.badPlain)\r\nAUTH PLAIN \(Self.goodPlain)\r\n"
                + "MAIL FROM:<a@x.test>\r\n", peer: "127.0.0.1", Self.submission)
        #expect(twice.lines.suffix(2) == ["235 2.7.0 Authentication successful", "250 2.1.0 Ok"])
        let one = Conversation.both("EHLO c\r\nAUTH PLAIN \(Self.badPlain)\r\nNOOP\r\n", peer: "127.0.0.1") {
            Self.submission(&$0)
            $0.maxAuthenticationFailures = 1
        }
        #expect(one.lines.last == "421 4.7.0 Error: too many failed authentication attempts")
    }

    @Test("A session whose credential was revoked after AUTH starts no transaction until it authenticates again")
    func revokedCredential() {
        // The scripted sink takes `tm_pro_once` for user-2, whose credential is revoked as soon as it was checked.
        let c = Conversation.both(
            "EHLO c\r\nAUTH PLAIN \(Self.oncePlain)\r\nMAIL FROM:<a@x.test>\r\nRCPT TO:<alice@local.test>\r\n"
                + "AUTH PLAIN \(Self.goodPlain)\r\nMAIL FROM:<b@x.test>\r\nRCPT TO:<alice@local.test>\r\n"
                + "DATA\r\nhi\r\n.\r\n", peer: "127.0.0.1", Self.submission)
        #expect(
            Array(c.lines.suffix(8)) == [
                "235 2.7.0 Authentication successful", "530 5.7.0 Authentication required",
                "503 5.5.1 Error: need MAIL command", "235 2.7.0 Authentication successful", "250 2.1.0 Ok",
                "250 2.1.5 Ok", "354 End data with <CR><LF>.<CR><LF>", "250 2.0.0 OK queued as Q1",
            ])
        #expect(c.deliveries.map(\.authenticatedAs) == ["user-1"])
        #expect(c.deliveries.map(\.mailFrom) == ["b@x.test"])
    }

    @Test("Before TLS a client that is not on loopback gets 538 and no AUTH in EHLO")
    func plaintextRefusedOffLoopback() {
        let c = Conversation.both(
            "EHLO c\r\nAUTH PLAIN \(Self.goodPlain)\r\nMAIL FROM:<a@x.test>\r\n", peer: "192.0.2.7", Self.submission)
        #expect(!c.replies.contains("AUTH"))
        #expect(
            c.lines.suffix(2) == [
                "538 5.7.11 Encryption required for requested authentication mechanism",
                "530 5.7.0 Authentication required",
            ])
        // The mapped form of a public address is no loopback either; the rule `never` refuses loopback too.
        #expect(!SMTPSessionMachine.isLoopback("::ffff:192.0.2.7"))
        #expect(SMTPSessionMachine.isLoopback("::ffff:127.0.0.1"))
        let never = Conversation.both("EHLO c\r\nAUTH PLAIN \(Self.goodPlain)\r\n", peer: "127.0.0.1") {
            Self.submission(&$0)
            $0.plaintextAuthentication = .never
        }
        #expect(never.lines.last == "538 5.7.11 Encryption required for requested authentication mechanism")
    }

    @Test("Cancel, bad base64, unknown mechanisms, AUTH twice and before EHLO")
    func malformed() {
        let c = Conversation.both(
            "AUTH PLAIN \(Self.goodPlain)\r\nEHLO c\r\nAUTH CRAM-MD5\r\nAUTH LOGIN\r\n*\r\nAUTH PLAIN !!!\r\n"
                + "AUTH PLAIN \(Self.goodPlain)\r\nAUTH PLAIN \(Self.goodPlain)\r\n", peer: "127.0.0.1", Self.submission
        )
        #expect(c.lines.first(where: { $0.hasPrefix("503") }) == "503 5.5.1 Error: send HELO/EHLO first")
        #expect(
            Array(c.lines.suffix(6)) == [
                "504 5.5.4 Unrecognized authentication type", "334 VXNlcm5hbWU6", "501 5.7.0 Authentication cancelled",
                "501 5.5.2 Cannot decode response", "235 2.7.0 Authentication successful",
                "503 5.5.1 Error: already authenticated",
            ])
    }

    @Test("A receiving MX offers neither AUTH nor STARTTLS without a certificate, and answers both 502")
    func notOffered() {
        let c = Conversation.both("EHLO c\r\nAUTH PLAIN \(Self.goodPlain)\r\nSTARTTLS\r\nMAIL FROM:<a@x.test>\r\n")
        #expect(!c.replies.contains("AUTH") && !c.replies.contains("STARTTLS"))
        #expect(
            c.lines.suffix(3) == [
                "502 5.5.1 Error: command not implemented", "502 5.5.1 Error: command not implemented", "250 2.1.0 Ok",
            ])
    }

    @Test("PLAIN another user to act as, or a password holding NUL, is a failed attempt (the decoder IMAP shares)")
    func plainShapes() {
        // "admin\0user\0secret" and "\0user\0sec\0ret", then the right one.
        let c = Conversation.both(
            "EHLO c\r\nAUTH PLAIN YWRtaW4AdXNlcgBzZWNyZXQ=\r\nAUTH PLAIN AHVzZXIAc2VjAHJldA==\r\nAUTH PLAIN =\r\n"
                + "\(Self.goodPlain)\r\n", peer: "127.0.0.1", Self.submission)
        #expect(
            Array(c.lines.suffix(4)) == [
                "535 5.7.8 Authentication credentials invalid", "535 5.7.8 Authentication credentials invalid",
                "334 ", "235 2.7.0 Authentication successful",
            ])
    }
}
