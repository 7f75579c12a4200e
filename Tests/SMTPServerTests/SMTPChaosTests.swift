import SocketServer
import Synchronization
import Testing

@testable import SMTPServer

/// A source that answers the numbers it was given, in order (then 0).
private struct Scripted: SMTPChaosRandom {
    var numbers: [UInt64]
    mutating func next() -> UInt64 { numbers.isEmpty ? 0 : numbers.removeFirst() }
}

private func reply(_ code: Int, _ enhanced: String? = nil, _ text: String = "") -> SMTPChaosRule.Action {
    .reply(code: code, enhanced: enhanced.flatMap(SMTPChaosRule.EnhancedCode.init), text: text)
}

@Suite("SMTP failure injection: the rule matcher, pure, with an injected randomness source")
struct SMTPChaosRuleTests {
    @Test("a pattern's * and ? match any run and one character, ASCII letters in either case")
    func patterns() throws {
        let domain = try SMTPChaosPattern("*@Example.com", field: "rcpt_to")
        #expect(domain.matches("ann@example.COM") && domain.matches("@example.com"))
        #expect(!domain.matches("ann@example.com.evil") && !domain.matches("ann@example.org"))
        let one = try SMTPChaosPattern("bounce-?@*.test", field: "mail_from")
        #expect(one.matches("bounce-7@a.b.test") && !one.matches("bounce-77@a.test") && !one.matches("bounce-@a.test"))
        #expect(try SMTPChaosPattern("a*b*c", field: "x").matches("aXXbYYbc"))
        #expect(throws: SMTPChaosRule.Invalid("rcpt_to", "rcpt_to must be 1 to 256 characters")) {
            try SMTPChaosPattern("", field: "rcpt_to")
        }
    }

    @Test("a rule out of range, or with a pattern where the session cannot know it, names the field at fault")
    func invalid() {
        func field(_ make: () throws -> SMTPChaosRule) -> String? {
            do {
                _ = try make()
                return nil
            } catch {
                return (error as? SMTPChaosRule.Invalid)?.field ?? "\(error)"
            }
        }
        #expect(field { try SMTPChaosRule(stage: .rcpt, action: reply(399)) } == "code")
        #expect(field { try SMTPChaosRule(stage: .rcpt, action: reply(600)) } == "code")
        #expect(field { try SMTPChaosRule(stage: .rcpt, action: reply(451, "5.7.1")) } == "enhanced_code")
        #expect(field { try SMTPChaosRule(stage: .rcpt, action: reply(451, nil, "bad\r\nline")) } == "text")
        #expect(field { try SMTPChaosRule(stage: .rcpt, action: .stall(seconds: 0)) } == "seconds")
        #expect(field { try SMTPChaosRule(stage: .rcpt, action: .stall(seconds: 301)) } == "seconds")
        #expect(field { try SMTPChaosRule(stage: .rcpt, action: .disconnect, probability: 101) } == "probability")
        #expect(field { try SMTPChaosRule(stage: .rcpt, action: .disconnect, times: 0) } == "times")
        #expect(field { try SMTPChaosRule(stage: .helo, action: .disconnect, mailFrom: "*") } == "mail_from")
        #expect(field { try SMTPChaosRule(stage: .mail, action: .disconnect, recipient: "*") } == "rcpt_to")
        #expect(field { try SMTPChaosRule(stage: .rcpt, action: reply(451, "4.7.1", "Greylisted"), times: 2) } == nil)
        #expect(SMTPChaosRule.EnhancedCode("4.7.1")?.description == "4.7.1")
        #expect(SMTPChaosRule.EnhancedCode("3.1.1") == nil && SMTPChaosRule.EnhancedCode("4.7") == nil)
    }

    @Test("the first live rule that matches fires; times counts it down and then it is spent")
    func timesAndOrder() throws {
        var set = SMTPChaosRuleSet(
            [
                try SMTPChaosRule(stage: .rcpt, action: reply(451, "4.7.1", "Greylisted"), recipient: "*@grey.test", times: 2),
                try SMTPChaosRule(stage: .rcpt, action: reply(550), mailFrom: "spam@*"),
                try SMTPChaosRule(stage: .data, action: .disconnect),
            ], random: Scripted(numbers: []))
        let grey = SMTPChaosPoint(.rcpt, mailFrom: "a@b.test", recipients: ["x@grey.test"])
        #expect(set.decide(grey) == reply(451, "4.7.1", "Greylisted"))
        #expect(set.decide(SMTPChaosPoint(.rcpt, mailFrom: "a@b.test", recipients: ["x@other.test"])) == nil)
        #expect(set.decide(grey) == reply(451, "4.7.1", "Greylisted"))
        #expect(set.decide(grey) == nil)
        #expect(set.remaining == [0, nil, nil])
        #expect(set.decide(SMTPChaosPoint(.rcpt, mailFrom: "spam@b.test", recipients: ["x@grey.test"])) == reply(550))
        #expect(set.decide(SMTPChaosPoint(.data, mailFrom: "a@b.test", recipients: ["x@grey.test"])) == .disconnect)
        #expect(set.decide(SMTPChaosPoint(.mail, mailFrom: "a@b.test")) == nil)
        #expect(set.isLive)
        var once = SMTPChaosRuleSet([try SMTPChaosRule(stage: .helo, action: .disconnect, times: 1)], random: Scripted(numbers: []))
        #expect(once.isLive && once.decide(SMTPChaosPoint(.helo)) == .disconnect && !once.isLive)
    }

    @Test("a probability draws one number a matching point: it fires when the number mod 100 is under it")
    func probabilityDraws() throws {
        var set = SMTPChaosRuleSet(
            [try SMTPChaosRule(stage: .rcpt, action: reply(451), probability: 25)],
            random: Scripted(numbers: [10, 90, 124, 225, 7]))
        let point = SMTPChaosPoint(.rcpt, mailFrom: "a@b.test", recipients: ["c@d.test"])
        // Not drawn for a point that does not match: the 7 is left for the last rcpt.
        #expect(set.decide(SMTPChaosPoint(.mail, mailFrom: "a@b.test")) == nil)
        let fired = (0..<5).map { _ in set.decide(point) != nil }
        #expect(fired == [true, false, true, false, true])
    }

    @Test("a seed repeats: 2,000 recipients at probability 25 meet the same refusals twice; another seed differs")
    func seedRepeats() throws {
        let rule = try SMTPChaosRule(stage: .rcpt, action: reply(451), probability: 25)
        func refused(seed: UInt64) -> [Int] {
            var set = SMTPChaosRuleSet([rule], random: SMTPChaosSeededRandom(seed: seed))
            return (0..<2000).filter { set.decide(SMTPChaosPoint(.rcpt, mailFrom: "a@b.test", recipients: ["r\($0)@d.test"])) != nil }
        }
        let first = refused(seed: 42)
        #expect(first == refused(seed: 42))
        #expect(first != refused(seed: 43))
        #expect((400...600).contains(first.count), "\(first.count) of 2000 at 25%")
    }

    @Test("the shared book: scopes apart, disarmed when every rule is spent or cleared, each injection reported")
    func book() throws {
        let reported = Atomic<Int>(0)
        let chaos = SMTPChaos { stage, action in
            if stage == .mail && action == reply(421) { reported.add(1, ordering: .relaxed) }
        }
        #expect(!chaos.isArmed)
        chaos.set([try SMTPChaosRule(stage: .mail, action: reply(421), times: 1)], seed: 1, for: .user("ann"))
        #expect(chaos.isArmed)
        #expect(chaos.decide(SMTPChaosPoint(.mail, mailFrom: "a@b.test"), in: .user("bob")) == nil)
        #expect(chaos.decide(SMTPChaosPoint(.mail, mailFrom: "a@b.test"), in: .server) == nil)
        #expect(chaos.decide(SMTPChaosPoint(.mail, mailFrom: "a@b.test"), in: .user("ann")) == reply(421))
        #expect(!chaos.isArmed)
        #expect(chaos.rules(for: .user("ann"))?.set.remaining == [0])
        chaos.set([try SMTPChaosRule(stage: .mail, action: .disconnect)], seed: 1, for: .server)
        #expect(chaos.isArmed)
        chaos.clear(.server)
        #expect(!chaos.isArmed && chaos.rules(for: .server) == nil)
        #expect(reported.load(ordering: .relaxed) == 1)
    }

    @Test("the book keeps each scope's source moving: at probability 50 a run of points meets faults and passes")
    func bookDraws() throws {
        let chaos = SMTPChaos()
        chaos.set([try SMTPChaosRule(stage: .rcpt, action: reply(450), probability: 50)], seed: 9, for: .server)
        let fired = (0..<200).filter { n in
            chaos.decide(SMTPChaosPoint(.rcpt, mailFrom: "a@b.test", recipients: ["r\(n)@d.test"]), in: .server) != nil
        }
        var alone = SMTPChaosRuleSet(
            [try SMTPChaosRule(stage: .rcpt, action: reply(450), probability: 50)], random: SMTPChaosSeededRandom(seed: 9))
        let expected = (0..<200).filter { n in
            alone.decide(SMTPChaosPoint(.rcpt, mailFrom: "a@b.test", recipients: ["r\(n)@d.test"])) != nil
        }
        #expect(fired == expected)
        #expect((60...140).contains(fired.count), "\(fired.count) of 200 at 50%")
    }
}

@Suite("SMTP failure injection in the session machine, with a scripted sink")
struct SMTPChaosSessionTests {
    /// A configuration whose sessions follow the server's `rules` (a new book each run).
    static func server(_ rules: [SMTPChaosRule], seed: UInt64 = 7) -> (inout SMTPServerConfiguration) -> Void {
        { configuration in
            let chaos = SMTPChaos()
            chaos.set(rules, seed: seed, for: .server)
            configuration.chaos = SMTPChaosTarget(chaos, scoping: .server)
        }
    }

    static let message = "MAIL FROM:<a@remote.test>\r\nRCPT TO:<alice@local.test>\r\nDATA\r\nhi\r\n.\r\n"

    @Test("rcpt 451 times 2: refused, refused, accepted; one message stored; the injected reply is the rule's")
    func greylisting() throws {
        let rule = try SMTPChaosRule(stage: .rcpt, action: reply(451, "4.7.1", "Greylisted, try again"), times: 2)
        let c = Conversation.both(
            "EHLO c\r\n" + String(repeating: Self.message, count: 3) + "QUIT\r\n", Self.server([rule]))
        #expect(c.lines.filter { $0.hasPrefix("451") } == ["451 4.7.1 Greylisted, try again", "451 4.7.1 Greylisted, try again"])
        #expect(c.deliveries.count == 1)
        #expect(c.lines.contains("250 2.0.0 OK queued as Q1"))
    }

    @Test("after-data 452: the message is read and not stored; the transaction ends with the reply")
    func afterData() throws {
        let rule = try SMTPChaosRule(stage: .afterData, action: reply(452, "4.3.1", "Insufficient system storage"))
        let c = Conversation.both("EHLO c\r\n" + Self.message + "QUIT\r\n", Self.server([rule]))
        #expect(c.deliveries.isEmpty)
        #expect(c.lines.suffix(2) == ["452 4.3.1 Insufficient system storage", "221 2.0.0 Bye"])
        let ended = c.events.compactMap { if case .transactionEnded(let record) = $0 { record.result } else { nil } }
        #expect(ended == [452])
    }

    @Test("a disconnect at DATA or after it stores nothing; at connect, a reply replaces the greeting and closes")
    func disconnects() throws {
        for stage in [SMTPChaosRule.Stage.data, .afterData] {
            let c = Conversation.both(
                "EHLO c\r\n" + Self.message + "QUIT\r\n", Self.server([try SMTPChaosRule(stage: stage, action: .disconnect)]))
            #expect(c.deliveries.isEmpty && c.ended, "\(stage)")
            #expect(!c.lines.contains("221 2.0.0 Bye"), "\(stage)")
        }
        let refused = Conversation.both(
            "EHLO c\r\n", Self.server([try SMTPChaosRule(stage: .connect, action: reply(554, "5.3.2", "No service"))]))
        #expect(refused.lines == ["554 5.3.2 No service"] && refused.ended)
    }

    @Test("a stall waits through the sink, then the stage goes on as if nothing had fired")
    func stall() throws {
        var h = SessionHarness(Self.server([try SMTPChaosRule(stage: .mail, action: .stall(seconds: 5))]))
        h.send(.opened)
        _ = h.writeAll()
        h.receive("EHLO c\r\n")
        _ = h.writeAll()
        #expect(h.receive("MAIL FROM:<a@remote.test>\r\n").contains("perform(stall 5s)"))
        #expect(h.writeAll().written.isEmpty)
        h.complete(.stalled)
        #expect(h.writeAll().written == "250 2.1.0 Ok\r\n")
    }

    @Test("on the sandbox port a session follows the rules of the user it authenticated as, never another's")
    func scopedToTheUser() throws {
        let chaos = SMTPChaos()
        chaos.set([try SMTPChaosRule(stage: .rcpt, action: reply(550, "5.1.1", "ann's fault"))], seed: 1, for: .user("ann"))
        func session(as user: String) -> String {
            var h = SessionHarness(peer: "127.0.0.1") {
                $0.requiresAuthentication = true
                $0.chaos = SMTPChaosTarget(chaos, scoping: .authenticatedUser)
            }
            h.send(.opened)
            h.receive("EHLO c\r\nAUTH PLAIN AGFueQB0bV9wcm9fZ29vZA==\r\n")
            h.complete(.authenticated("token-of-\(user)", chaosScope: user))
            h.receive("MAIL FROM:<a@remote.test>\r\n")
            h.complete(.confirmed(true))
            h.receive("RCPT TO:<x@y.test>\r\n")
            if !h.jobs.isEmpty { h.complete(.verdict(.accept)) }
            return h.writeAll().written.split(separator: "\r\n").last.map(String.init) ?? ""
        }
        #expect(session(as: "ann") == "550 5.1.1 ann's fault")
        #expect(session(as: "bob") == "250 2.1.5 Ok")
    }
}
