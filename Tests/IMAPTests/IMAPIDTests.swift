import Testing

@testable import IMAP

/// `ID` (RFC 2971) as imaptest's `id` group sends it: answered by the session in any state, the client's pairs read
/// and not kept, however many and however long (within the command's own bound), `NIL` too.
@Suite("IMAP ID (RFC 2971)")
struct IMAPIDTests {
    @Test("ID NIL and ID with pairs, before and after sign-in: * ID (\"name\" \"Postern\") and OK; ID advertised")
    func answered() {
        var harness = IMAPSessionHarness.loopback()
        #expect(harness.take().contains(" ID "))
        harness.send("a1 ID NIL\r\n")
        #expect(harness.take() == "* ID (\"name\" \"Postern\")\r\na1 OK ID completed\r\n")
        let value = String(repeating: "1234567890", count: 103)
        let pairs = (0..<31).map { "\"f\($0)\" \"\(value)\"" }.joined(separator: " ")
        harness.send("a2 ID (\(pairs) \"nil-value\" NIL)\r\n")
        #expect(harness.take() == "* ID (\"name\" \"Postern\")\r\na2 OK ID completed\r\n")
        #expect(harness.takeRequests().isEmpty)
        harness.send("a3 login u p\r\n")
        harness.authenticated(.succeeded(user: "u"))
        _ = harness.take()
        harness.send("a4 ID (\"name\" \"imaptest\")\r\n")
        #expect(harness.take() == "* ID (\"name\" \"Postern\")\r\na4 OK ID completed\r\n")
    }

    @Test("a malformed ID is BAD: no list, an odd count, a field that is NIL")
    func malformed() throws {
        for line in ["a1 ID\r\n", "a1 ID (\"name\")\r\n", "a1 ID (NIL \"x\")\r\n", "a1 ID name\r\n"] {
            var harness = IMAPSessionHarness.loopback()
            _ = harness.take()
            harness.send(line)
            #expect(harness.take().hasPrefix("a1 BAD"), "\(line)")
        }
    }
}
