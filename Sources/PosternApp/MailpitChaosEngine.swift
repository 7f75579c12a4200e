import MailpitAPI
import SMTPServer

/// Mailpit's chaos triggers over the one failure-injection engine every SMTP listener asks (issue 71): each trigger is
/// one rule of its scope, at the stage where Mailpit's fires, answering its code with Mailpit's text and drawing its
/// probability from the scope's seed: `Sender` at `MAIL FROM`, `Recipient` at each `RCPT TO`, `Authentication` at
/// `AUTH`. The operator's triggers are the server's rules (the ingest port), a Pro user's their sandbox's.
///
/// Mailpit's `PUT` sets all three triggers at once, so it replaces the scope's rules (those set through
/// `/api/operator/chaos` or `/api/user/sandbox/chaos` too); a trigger at probability 0 stays a rule that never fires,
/// so that `GET` answers its code back, and three of them clear the scope.
struct MailpitChaosEngine: MailpitChaosRules {
    let chaos: SMTPChaos

    /// Each trigger's stage and the text of its reply (Mailpit's `smtpd.go`).
    static let stages: [(stage: SMTPChaosRule.Stage, text: String)] = [
        (.mail, "Chaos sender error"), (.rcpt, "Chaos recipient error"), (.auth, "Chaos authentication error"),
    ]

    func triggers(for scope: MailpitChaosScope) -> MailpitChaosTriggers {
        let rules = chaos.rules(for: Self.scope(scope))?.set.rules ?? []
        let defaults = MailpitChaosTriggers.off
        let found = zip(Self.stages, [defaults.sender, defaults.recipient, defaults.authentication]).map {
            entry, fallback in
            rules.first { $0.stage == entry.stage }.flatMap(Self.trigger) ?? fallback
        }
        return MailpitChaosTriggers(sender: found[0], recipient: found[1], authentication: found[2])
    }

    func set(_ triggers: MailpitChaosTriggers, for scope: MailpitChaosScope) {
        let given = [triggers.sender, triggers.recipient, triggers.authentication]
        guard given.contains(where: { $0.probability > 0 }) else { return chaos.clear(Self.scope(scope)) }
        // Mailpit's parse has checked each code (400 to 599) and probability (0 to 100): the rules cannot be refused.
        let rules = zip(Self.stages, given).compactMap { entry, trigger in
            try? SMTPChaosRule(
                stage: entry.stage, action: .reply(code: trigger.errorCode, enhanced: nil, text: entry.text),
                probability: trigger.probability)
        }
        chaos.set(rules, seed: UInt64.random(in: 0...(1 << 53)), for: Self.scope(scope))
    }

    /// The trigger `rule` is, when Mailpit's shape can say it: a reply with no enhanced code, no pattern and no count.
    static func trigger(_ rule: SMTPChaosRule) -> MailpitChaosTrigger? {
        guard case .reply(let code, nil, _) = rule.action, rule.mailFrom == nil, rule.recipient == nil,
            rule.times == nil
        else { return nil }
        return MailpitChaosTrigger(errorCode: code, probability: rule.probability)
    }

    static func scope(_ scope: MailpitChaosScope) -> SMTPChaosScope {
        switch scope {
        case .server: .server
        case .user(let owner): .user(owner)
        }
    }
}
