import MailDoor
import Testing

@testable import POP3

/// Issue 81 item 11: a POP3 connection that has not signed in is closed after as long a silence as IMAP's (the mail
/// doors' ``MailDoorTimeouts/unauthenticated``, 60 s, IMAPLimits' default too), not after the signed-in session's 10
/// minutes.
@Suite("POP3: a silent connection that has not signed in is closed as soon as IMAP's")
struct POP3PreAuthTimeoutTests {
    static let second: UInt64 = 1_000_000_000
    static let imapPreAuth = MailDoorTimeouts.nanoseconds(MailDoorTimeouts.unauthenticated)

    @Test("silent from the greeting: closed at IMAP's unauthenticated timeout, with no response")
    func silentFromGreeting() {
        var harness = POP3SessionHarness.loopback()
        _ = harness.take()
        #expect(harness.session.deadline == Self.imapPreAuth)
        var actions: [POP3Session.Action] = []
        harness.session.timerFired(now: Self.imapPreAuth - 1, into: &actions)
        #expect(actions.isEmpty)
        harness.session.timerFired(now: Self.imapPreAuth, into: &actions)
        #expect(actions == [.closeConnection])
        #expect(harness.take().isEmpty)
    }

    @Test("a USER without its PASS is not signed in: the short timeout runs from its last byte")
    func halfwaySignIn() {
        var harness = POP3SessionHarness.loopback()
        harness.send("USER ann\r\n", now: 30 * Self.second)
        _ = harness.take()
        #expect(harness.session.deadline == 30 * Self.second + Self.imapPreAuth)
    }

    @Test("signed in, the silence allowed is the autologout again (RFC 1939: 10 minutes)")
    func signedInKeepsAutologout() {
        var harness = POP3SessionHarness.loopback()
        harness.signIn([])
        harness.send("NOOP\r\n", now: 5 * Self.second)
        #expect(harness.session.deadline == 5 * Self.second + 600 * Self.second)
    }

    @Test("one shared default for IMAP and POP3 before sign-in: 60 s")
    func oneSharedDefault() {
        #expect(POP3Limits().unauthenticatedTimeout == MailDoorTimeouts.unauthenticated)
        #expect(MailDoorTimeouts.unauthenticated == .seconds(60))
    }
}
