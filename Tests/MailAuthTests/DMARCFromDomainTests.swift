import Testing

@testable import MailAuth

/// The From domain DMARC aligns with (RFC 7489 6.6.1), read as the sender check reads From: a field that readers
/// could take two ways has no domain, rather than the domain of its last `<...>`.
@Suite("DMARC From domain")
struct DMARCFromDomainTests {
    static func domain(_ header: String) -> String? {
        MailAuthenticator.fromDomain(MessageHeaders(Array((header + "To: x@y.test\r\n\r\nbody\r\n").utf8)))
    }

    @Test("one mailbox: its domain, in any of the RFC's spellings")
    func oneMailbox() {
        #expect(Self.domain("From: Name <a@Example.COM>\r\n") == "example.com")
        #expect(Self.domain("From: \"Last, First\" <a@b.test> (comment)\r\n") == "b.test")
        #expect(Self.domain("From: a@folded.test\r\n") == "folded.test")
        #expect(Self.domain("From: Name\r\n <a@folded.test>\r\n") == "folded.test")
    }

    @Test("no domain for a From that names several mailboxes, none, or one some reader takes as another")
    func noDomain() {
        #expect(Self.domain("From: <ceo@victim.test> <own@attacker.test>\r\n") == nil)
        #expect(Self.domain("From: <ceo@victim.test> \"<own@attacker.test>\"\r\n") == nil)
        #expect(Self.domain("From: a@one.test, b@two.test\r\n") == nil)
        #expect(Self.domain("From: a@one.test\r\nFrom: b@two.test\r\n") == nil)
        #expect(Self.domain("Subject: none\r\n") == nil)
    }
}
