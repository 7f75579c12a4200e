import MailDoor
import Testing

@testable import IMAP

@Suite("IMAP session limits, timers and IDLE")
struct IMAPSessionLimitsTests {
    static func count(_ text: String, _ needle: String) -> Int {
        text.split(separator: "\r\n").filter { $0.contains(needle) }.count
    }

    @Test("10,000 commands pipelined: each answered, in turns of the pipelining limit")
    func pipelined() {
        var harness = IMAPSessionHarness()
        _ = harness.take()
        let commands = (1...10_000).map { "n\($0) NOOP\r\n" }.joined()
        harness.send(commands)
        let answers = harness.take()
        #expect(Self.count(answers, "OK NOOP completed") == 10_000)
        #expect(answers.hasPrefix("n1 OK NOOP completed\r\nn2 OK"))
        #expect(answers.hasSuffix("n10000 OK NOOP completed\r\n"))
        #expect(harness.turns == 10_000 / 64 + 1)
    }

    @Test("While the driver works, input waits, and past the buffer limit the session asks for no more")
    func backPressure() {
        var harness = IMAPSessionHarness.loopback()
        harness.select()
        let fetches = (1...2_000).map { "f\($0) FETCH 1 FLAGS\r\n" }.joined()
        harness.send(fetches)
        #expect(harness.takeRequests().count == 1)
        #expect(harness.session.wantsInput == (fetches.utf8.count < IMAPLimits().maxBufferedInputBytes))
        var small = IMAPSessionHarness {
            $0.limits.maxBufferedInputBytes = 1000
            $0.allowsPlaintextAuthentication = true
        }
        small.select()
        small.send(String(fetches.prefix(5000)))
        #expect(!small.session.wantsInput)
        var answered = 0
        repeat {
            harness.complete([], IMAPStatusResponse(.ok, "FETCH completed"))
            answered += 1
        } while !harness.takeRequests().isEmpty
        #expect(answered == 2_000)
        #expect(Self.count(harness.take(), "OK FETCH completed") == 2_000)
        #expect(harness.session.wantsInput)
    }

    @Test("A 100 kB line, a literal over the limit, then a good command: BAD, BAD [TOOBIG], OK")
    func oversized() {
        var harness = IMAPSessionHarness()
        _ = harness.take()
        harness.send("a1 LOGIN \"" + String(repeating: "x", count: 100_000) + "\" y\r\n")
        harness.send("a2 LOGIN {99999999}\r\n")
        harness.send("a3 NOOP\r\n")
        #expect(
            harness.take()
                == "a1 BAD [TOOBIG] Command line too long\r\na2 BAD [TOOBIG] Literal too large\r\n"
                    + "a3 OK NOOP completed\r\n"
        )
        harness.send("a4 APPEND INBOX {99999999999+}\r\n")
        #expect(harness.take() == "a4 BAD [TOOBIG] Literal too large\r\n* BYE Too much data\r\n")
        #expect(harness.closed)
        #expect(!harness.session.wantsInput)
    }

    @Test("A synchronizing literal gets its continuation request; an unterminated one ends in autologout")
    func literals() {
        var harness = IMAPSessionHarness.loopback()
        harness.signIn()
        harness.send("a APPEND INBOX {11}\r\n")
        #expect(harness.take() == "+ Ready for literal data\r\n")
        harness.send("Hello")
        #expect(harness.take() == "")
        #expect(harness.session.deadline == 30 * IMAPSessionHarness.minute)
        harness.tick(to: 30 * IMAPSessionHarness.minute - 1)
        #expect(!harness.closed)
        harness.tick(to: 30 * IMAPSessionHarness.minute)
        #expect(harness.take() == "* BYE Autologout; idle for too long\r\n")
        #expect(harness.closed)
    }

    @Test(
        "Autologout: 60 s before sign-in, 30 minutes after; activity and IDLE re-issued every 29 minutes keep it open"
    )
    func autologout() {
        #expect(IMAPLimits().unauthenticatedTimeout == MailDoorTimeouts.unauthenticated)  // POP3's too (POP3Tests)
        var early = IMAPSessionHarness()
        #expect(early.session.deadline == IMAPSessionHarness.minute)
        early.tick(to: IMAPSessionHarness.minute)
        #expect(early.closed)

        var harness = IMAPSessionHarness.loopback()
        harness.select()
        for round in 1...4 {
            harness.now = UInt64(round) * 29 * IMAPSessionHarness.minute
            harness.tick(to: harness.now)
            #expect(!harness.closed)
            if round > 1 { harness.send("DONE\r\n") }
            harness.send("i\(round) IDLE\r\n")
        }
        #expect(harness.session.deadline == 4 * 29 * IMAPSessionHarness.minute + 30 * IMAPSessionHarness.minute)
        harness.send("DONE\r\n")
        harness.send("x FETCH 1 FLAGS\r\n")
        #expect(harness.session.deadline == nil)  // the driver is working: the client's wait is not silence
        harness.tick(to: 1_000 * IMAPSessionHarness.minute)
        #expect(!harness.closed)
        harness.complete([], IMAPStatusResponse(.ok, "FETCH completed"))
        harness.tick(to: 1_030 * IMAPSessionHarness.minute)
        #expect(harness.closed)
    }

    @Test("IDLE: + idling, changes sent as they come, DONE ends it; any other line ends it with BAD")
    func idle() {
        var harness = IMAPSessionHarness.loopback()
        harness.select()
        var actions: [IMAPSession.Action] = []
        #expect(!harness.session.notify([.exists(1)], into: &actions))
        harness.send("a IDLE\r\n")
        #expect(harness.take() == "+ idling\r\n")
        let inbox = IMAPSelection(mailbox: IMAPMailboxName("INBOX"), readOnly: false)
        #expect(harness.takeRequests() == [.idleStarted(selection: inbox)])
        #expect(harness.session.notify([.exists(1), .fetch(1, [.flags([.seen])])], into: &actions))
        harness.apply(actions)
        #expect(harness.take() == "* 1 EXISTS\r\n* 1 FETCH (FLAGS (\\Seen))\r\n")
        harness.send("done\r\n")
        #expect(harness.take() == "a OK IDLE terminated\r\n")
        #expect(harness.takeRequests() == [.idleEnded])
        harness.send("b IDLE\r\nc NOOP\r\n")
        #expect(harness.take() == "+ idling\r\nb BAD Expected DONE\r\n")
        #expect(harness.takeRequests() == [.idleStarted(selection: inbox), .idleEnded])
    }

    @Test("Shutdown says BYE and closes, ending an IDLE")
    func shutdown() {
        var harness = IMAPSessionHarness.loopback()
        harness.signIn()
        harness.send("a IDLE\r\n")
        _ = harness.take()
        _ = harness.takeRequests()
        var actions: [IMAPSession.Action] = []
        harness.session.shutdown(into: &actions)
        harness.apply(actions)
        #expect(harness.take() == "* BYE Server shutting down\r\n")
        #expect(harness.takeRequests() == [.idleEnded])
        #expect(harness.closed)
        #expect(harness.session.deadline == nil)
    }
}
