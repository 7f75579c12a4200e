import BufferBudget
import Testing

@testable import IMAP

/// Review 7's first finding: before sign-in a literal is small, and after it the literals of every session together
/// stay within the process's ``BufferBudget``: a session past it is refused (`NO [LIMIT]`), never the process.
@Suite("IMAP session: literals before sign-in and the shared budget")
struct IMAPLiteralBudgetTests {
    @Test("before sign-in a literal over 8 KiB is refused before it is sent; signed in, the same literal is asked for")
    func unauthenticatedLiterals() {
        var harness = IMAPSessionHarness.loopback()
        _ = harness.take()
        harness.send("a1 LOGIN ann {33554432}\r\n")
        #expect(harness.take() == "a1 BAD [TOOBIG] Literal too large\r\n")
        harness.send("a2 LOGIN ann {8193}\r\n")
        #expect(harness.take() == "a2 BAD [TOOBIG] Literal too large\r\n")
        harness.send("a3 LOGIN ann {6}\r\n")
        #expect(harness.take() == "+ Ready for literal data\r\n")
        harness.send("secret\r\n")
        #expect(harness.takeRequests() == [.login(username: "ann", password: "secret")])
        harness.authenticated(.succeeded(user: "ann"))
        _ = harness.take()
        harness.send("a4 APPEND INBOX {8193}\r\n")
        #expect(harness.take() == "+ Ready for literal data\r\n")
    }

    @Test("before sign-in a command line over 32 KiB is refused; a token-sized AUTHENTICATE line is read")
    func unauthenticatedLines() {
        var harness = IMAPSessionHarness.loopback()
        _ = harness.take()
        harness.send("a1 LOGIN ann \"" + String(repeating: "x", count: 33_000) + "\"\r\n")
        #expect(harness.take() == "a1 BAD [TOOBIG] Command line too long\r\n")
        harness.send("a2 AUTHENTICATE PLAIN " + String(repeating: "QUFB", count: 1_000) + "\r\n")
        #expect(harness.takeRequests().count == 1)
    }

    /// Two signed-in sessions sharing one budget of `capacity` bytes.
    static func pair(capacity: Int) -> (BufferBudget, IMAPSessionHarness, IMAPSessionHarness) {
        let budget = BufferBudget(capacity: capacity)
        func session() -> IMAPSessionHarness {
            var harness = IMAPSessionHarness {
                $0.allowsPlaintextAuthentication = true
                $0.buffers = budget
            }
            harness.signIn()
            return harness
        }
        return (budget, session(), session())
    }

    @Test("a literal the budget cannot hold is refused NO [LIMIT] at once; it is asked for once the first is answered")
    func sharedBudget() {
        var (budget, first, second) = Self.pair(capacity: 10_000)
        first.send("a1 APPEND INBOX {8000}\r\n")
        #expect(first.take() == "+ Ready for literal data\r\n")
        #expect(budget.inUse == 8000)
        second.send("b1 APPEND INBOX {8000}\r\n")
        #expect(second.take() == "b1 NO [LIMIT] Server busy receiving other messages, try again later\r\n")
        // A non-synchronizing literal past the budget is read, dropped and refused the same way.
        second.send("b2 APPEND INBOX {3000+}\r\n" + String(repeating: "y", count: 3000) + "\r\n")
        #expect(second.take() == "b2 NO [LIMIT] Server busy receiving other messages, try again later\r\n")
        #expect(budget.inUse == 8000)
        first.send(String(repeating: "x", count: 8000) + "\r\n")
        #expect(first.takeRequests().count == 1)
        #expect(budget.inUse == 8000)  // held while the driver stores it
        first.complete([], IMAPStatusResponse(.ok, "APPEND completed"))
        #expect(budget.inUse == 0)
        second.send("b3 APPEND INBOX {8000}\r\n")
        #expect(second.take() == "+ Ready for literal data\r\n")
    }

    @Test("a session that ends with a literal half sent gives its bytes back")
    func closedMidLiteral() {
        var (budget, first, _) = Self.pair(capacity: 10_000)
        first.send("a1 APPEND INBOX {9000}\r\n" + String(repeating: "x", count: 100))
        #expect(budget.inUse == 9000)
        first.session.connectionClosed()
        #expect(budget.inUse == 0)
    }

    @Test("a hundred connections each announcing 32 MiB before sign-in take nothing from the budget")
    func hundredAnnouncements() {
        let budget = BufferBudget(capacity: 64 << 20)
        for index in 0..<100 {
            var harness = IMAPSessionHarness { $0.buffers = budget }
            harness.send("a\(index) LOGIN {33554432}\r\n")
            #expect(harness.take().hasSuffix("BAD [TOOBIG] Literal too large\r\n"))
        }
        #expect(budget.inUse == 0)
    }
}
