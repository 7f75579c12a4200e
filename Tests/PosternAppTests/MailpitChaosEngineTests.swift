import MailpitAPI
import SMTPServer
import Testing

@testable import PosternApp

/// Mailpit's chaos triggers as rules of the one failure-injection engine (issue 71): each trigger a reply rule at
/// Mailpit's stage with Mailpit's text, the operator's in the server's scope, a Pro user's in theirs, read back as set.
@Suite("Mailpit's chaos triggers on the failure-injection engine")
struct MailpitChaosEngineTests {
    static func triggers(sender: Int = 0, recipient: Int = 0, authentication: Int = 0) -> MailpitChaosTriggers {
        var triggers = MailpitChaosTriggers.off
        triggers.sender.probability = sender
        triggers.recipient = MailpitChaosTrigger(errorCode: 452, probability: recipient)
        triggers.authentication.probability = authentication
        return triggers
    }

    @Test("Recipient at 100: each RCPT TO of the scope gets Mailpit's reply; MAIL FROM at 0 and other scopes nothing")
    func recipientAlways() throws {
        let chaos = SMTPChaos()
        let engine = MailpitChaosEngine(chaos: chaos)
        engine.set(Self.triggers(recipient: 100), for: .server)
        let rcpt = SMTPChaosPoint(.rcpt, mailFrom: "app@example.com", recipients: ["ann@example.org"])
        for _ in 0..<3 {
            #expect(chaos.decide(rcpt, in: .server) == .reply(code: 452, enhanced: nil, text: "Chaos recipient error"))
        }
        #expect(chaos.decide(SMTPChaosPoint(.mail, mailFrom: "app@example.com"), in: .server) == nil)
        #expect(chaos.decide(rcpt, in: .user("pro-1")) == nil)
        #expect(engine.triggers(for: .server) == Self.triggers(recipient: 100))
        #expect(engine.triggers(for: .user("pro-1")) == .off)
    }

    @Test("a Pro user's Authentication trigger fires at their AUTH only; every trigger at 0 clears the scope")
    func perUserAndCleared() throws {
        let chaos = SMTPChaos()
        let engine = MailpitChaosEngine(chaos: chaos)
        engine.set(Self.triggers(authentication: 100), for: .user("pro-1"))
        #expect(
            chaos.decide(SMTPChaosPoint(.auth), in: .user("pro-1"))
                == .reply(code: 535, enhanced: nil, text: "Chaos authentication error"))
        #expect(chaos.decide(SMTPChaosPoint(.auth), in: .user("pro-2")) == nil)
        #expect(chaos.decide(SMTPChaosPoint(.auth), in: .server) == nil)
        engine.set(Self.triggers(sender: 0), for: .user("pro-1"))
        #expect(chaos.rules(for: .user("pro-1")) == nil)
        #expect(!chaos.isArmed)
    }

    @Test("a code at probability 0 is kept to be read back; a rule Mailpit cannot say reads as its trigger off")
    func readBack() throws {
        let chaos = SMTPChaos()
        let engine = MailpitChaosEngine(chaos: chaos)
        engine.set(Self.triggers(sender: 10), for: .server)
        #expect(engine.triggers(for: .server).recipient == MailpitChaosTrigger(errorCode: 452, probability: 0))
        #expect(engine.triggers(for: .server).sender == MailpitChaosTrigger(errorCode: 451, probability: 10))
        let counted = try SMTPChaosRule(
            stage: .rcpt, action: .reply(code: 451, enhanced: nil, text: "Greylisted"), times: 2)
        chaos.set([counted], seed: 1, for: .server)
        #expect(engine.triggers(for: .server) == .off)
    }
}
