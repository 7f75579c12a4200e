import Testing

@testable import SMTPServer

@Suite("SMTP command lines, parsed without a session")
struct SMTPCommandTests {
    private func parse(_ line: String) -> SMTPCommand { SMTPCommand.parse(Array(line.utf8)[...]) }

    @Test("paths: brackets, null path, source route dropped, sloppy space and missing brackets tolerated")
    func paths() {
        #expect(parse("MAIL FROM:<a@b.test>") == .mail(path: "a@b.test", declaredSize: nil))
        #expect(parse("mail from:<>") == .mail(path: "", declaredSize: nil))
        #expect(parse("MAIL FROM: <a@b.test> SIZE=42") == .mail(path: "a@b.test", declaredSize: 42))
        #expect(parse("MAIL FROM:a@b.test") == .mail(path: "a@b.test", declaredSize: nil))
        #expect(parse("RCPT TO:<@relay.test,@other.test:c@d.test>") == .rcpt(path: "c@d.test"))
        #expect(parse("RCPT TO:<Postmaster>") == .rcpt(path: "Postmaster"))
    }

    @Test("malformed paths and parameters are refused with the form the command takes")
    func malformed() {
        let mailSyntax = SMTPCommand.invalid(.syntax("MAIL FROM:<address>"))
        #expect(parse("MAIL FROM:<a@b.test") == mailSyntax)
        #expect(parse("MAIL FROM:<@b.test>") == mailSyntax)
        #expect(parse("MAIL FROM:<a@>") == mailSyntax)
        #expect(parse("MAIL FROM:<nobody>") == mailSyntax)
        #expect(parse("MAIL FROM:<caf\u{E9}@b.test>") == mailSyntax)
        #expect(parse("MAIL FROM:<\(String(repeating: "a", count: 250))@b.test>") == mailSyntax)
        #expect(
            parse("MAIL FROM:<a@b.test> SIZE=99999999999999999999")
                == .invalid(.syntax("MAIL FROM:<address> SIZE=<bytes>")))
        #expect(parse("MAIL FROM:<a@b.test> BODY=BINARYMIME") == .invalid(.unsupportedParameter))
        #expect(parse("RCPT TO:") == .invalid(.syntax("RCPT TO:<address>")))
        #expect(parse("RSET now") == .invalid(.syntax("RSET")))
    }

    @Test("verbs: case-insensitive, NOOP takes an argument, offered-nowhere extensions are 502, the rest 500")
    func verbs() {
        #expect(parse("ehlo client.test") == .ehlo(domain: "client.test"))
        #expect(parse("HELO [192.0.2.1]") == .helo(domain: "[192.0.2.1]"))
        #expect(parse("NOOP anything") == .noop)
        #expect(parse("STARTTLS") == .starttls)
        #expect(parse("STARTTLS now") == .invalid(.syntax("STARTTLS")))
        #expect(parse("auth plain AGFueQB0b2tlbg==") == .auth(mechanism: "PLAIN", initialResponse: "AGFueQB0b2tlbg=="))
        #expect(parse("AUTH") == .invalid(.syntax("AUTH mechanism [initial-response]")))
        #expect(parse("BDAT 10 LAST") == .notImplemented)
        #expect(parse("") == .unknown)
        #expect(parse("GET / HTTP/1.1") == .unknown)
    }
}
