import SMTPClient
import Testing

/// RFC 8461 §3.2's example policy, as the RFC prints it.
private let rfcExamplePolicy = """
    version: STSv1
    mode: enforce
    mx: mail.example.com
    mx: *.example.net
    mx: backupmx.example.com
    max_age: 604800

    """

@Suite("MTA-STS (RFC 8461): the policy, the MX matcher and the TXT record")
struct MTASTSTests {
    @Test("RFC 8461 §3.2's example policy parses to enforce, its three patterns and a week")
    func rfcExample() throws {
        let policy = try MTASTSPolicy.parse(rfcExamplePolicy)
        #expect(policy.mode == .enforce)
        #expect(policy.mxPatterns == ["mail.example.com", "*.example.net", "backupmx.example.com"])
        #expect(policy.maxAge == 604_800)
        // The same with CRLF line ends, spaces after the colons and at the ends, and an extension field.
        let crlf = "version:STSv1\r\nmode:   enforce  \r\nmx: mail.example.com\r\nmx:\t*.example.net\r\n"
            + "mx: backupmx.example.com\r\nmax_age: 604800\r\nx_ext: some value\r\n"
        #expect(try MTASTSPolicy.parse(crlf) == policy)
    }

    @Test(
        "the RFC example policy's matcher (§4.1): exact names, one label for the wildcard, any case, trailing dot",
        arguments: [
            ("mail.example.com", true), ("MAIL.Example.COM.", true), ("backupmx.example.com", true),
            ("mx1.example.net", true), ("mx1.example.net.", true), ("example.net", false),
            ("a.mx1.example.net", false), ("mail.example.com.evil.test", false), ("other.example.com", false),
            ("example.com", false), (".example.net", false), ("", false), ("evilexample.net", false),
        ])
    func matcher(host: String, expected: Bool) throws {
        let policy = try MTASTSPolicy.parse(rfcExamplePolicy)
        #expect(policy.matches(mxHost: host) == expected)
        #expect(policy.permitsDelivery(toMXHost: host) == expected)
    }

    @Test("testing and none permit every MX; none needs no mx line")
    func modes() throws {
        let testing = try MTASTSPolicy.parse("version: STSv1\nmode: testing\nmx: mail.example.com\nmax_age: 86400\n")
        #expect(testing.mode == .testing)
        #expect(!testing.matches(mxHost: "rogue.example.org"))
        #expect(testing.permitsDelivery(toMXHost: "rogue.example.org"))
        let none = try MTASTSPolicy.parse("version: STSv1\nmode: none\nmax_age: 86400")
        #expect(none.mode == .none && none.mxPatterns.isEmpty && none.permitsDelivery(toMXHost: "anything.test"))
    }

    @Test(
        "invalid policies are refused with the reason",
        arguments: [
            ("mode: enforce\nmx: a.test\nmax_age: 1", MTASTSError.missingField("version")),
            ("version: STSv2\nmode: enforce\nmx: a.test\nmax_age: 1", .unsupportedVersion),
            ("version: STSv1\nmode: strict\nmx: a.test\nmax_age: 1", .invalidMode),
            ("version: STSv1\nmode: enforce\nmx: a.test", .missingField("max_age")),
            ("version: STSv1\nmode: enforce\nmax_age: 1", .missingField("mx")),
            ("version: STSv1\nmode: enforce\nmx: a.test\nmax_age: 31557601", .invalidMaxAge),
            ("version: STSv1\nmode: enforce\nmx: a.test\nmax_age: -5", .invalidMaxAge),
            ("version: STSv1\nmode: enforce\nmx: a.test\nmax_age: 12345678901", .invalidMaxAge),
            ("version: STSv1\nmode: enforce\nmx: *.*.a.test\nmax_age: 1", .invalidMXPattern),
            ("version: STSv1\nmode: enforce\nmx: mail.*.test\nmax_age: 1", .invalidMXPattern),
            ("version: STSv1\nmode: enforce\nmx: -bad.test\nmax_age: 1", .invalidMXPattern),
            ("version: STSv1\nmode: enforce\nmode: testing\nmx: a.test\nmax_age: 1", .duplicateField("mode")),
            ("version: STSv1\nmode enforce\nmx: a.test\nmax_age: 1", .malformedPolicyLine),
            ("Version: STSv1\nmode: enforce\nmx: a.test\nmax_age: 1", .missingField("version")),
        ])
    func invalid(text: String, error: MTASTSError) {
        #expect(throws: error) { try MTASTSPolicy.parse(text) }
    }

    @Test("a policy body over 64 KiB is refused before it is read")
    func tooLarge() {
        let padding = "x_pad: " + String(repeating: "p", count: 100) + "\n"
        let text = rfcExamplePolicy + String(repeating: padding, count: 700)
        #expect(throws: MTASTSError.policyTooLarge) { try MTASTSPolicy.parse(text) }
    }

    @Test("RFC 8461 §3.1's example TXT record, and its variants")
    func record() throws {
        #expect(try MTASTSRecord.parse("v=STSv1; id=20160831085700Z;") == MTASTSRecord(id: "20160831085700Z"))
        #expect(try MTASTSRecord.parse("v=STSv1;id=abc123").id == "abc123")
        #expect(try MTASTSRecord.parse("v=STSv1 ;\tid=abc ; ext.x=val;").id == "abc")
        #expect(throws: MTASTSError.notAnSTSRecord) { try MTASTSRecord.parse("v=spf1 -all") }
        #expect(throws: MTASTSError.missingField("id")) { try MTASTSRecord.parse("v=STSv1;") }
        #expect(throws: MTASTSError.malformedRecord) { try MTASTSRecord.parse("v=STSv1; id=has-dash") }
        #expect(throws: MTASTSError.malformedRecord) {
            try MTASTSRecord.parse("v=STSv1; id=" + String(repeating: "a", count: 33))
        }
        #expect(throws: MTASTSError.duplicateField("id")) { try MTASTSRecord.parse("v=STSv1; id=a; id=b") }
        #expect(throws: MTASTSError.malformedRecord) { try MTASTSRecord.parse("v=STSv1; id") }
    }

    @Test("of several TXT records only one may start with v=STSv1; else the domain has no policy (RFC 8461 §3.1)")
    func select() {
        #expect(MTASTSRecord.select(from: ["v=spf1 -all", "v=STSv1; id=one;"]) == MTASTSRecord(id: "one"))
        #expect(MTASTSRecord.select(from: ["v=STSv1; id=one;", "v=STSv1; id=two;"]) == nil)
        #expect(MTASTSRecord.select(from: ["v=STSv1; id=bad-id;"]) == nil)
        #expect(MTASTSRecord.select(from: []) == nil)
    }
}
