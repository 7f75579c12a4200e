import Synchronization

/// Whose rules a session follows (issue 71 item 4): the server's on the ingest port (the operator sets them), one Pro
/// user's on the sandbox port (that user sets them), so two test workers with two users never see each other's faults.
public enum SMTPChaosScope: Sendable, Hashable {
    /// The operator's, on the ingest port.
    case server
    /// Pro user `id`'s, on the sandbox port, for sessions authenticated as that user.
    case user(String)
}

/// The rules in force, one ``SMTPChaosRuleSet`` a scope, shared by every session of the process: set and read by the
/// APIs, asked by the session machines at each stage. Only made when failure injection is on
/// (`POSTERN_SMTP_CHAOS`); a server without one asks nothing, and a server whose rules are all spent or cleared asks
/// no more than one atomic load a stage.
///
/// Thread-safe: the rule sets live behind a `Mutex`; ``isArmed`` is an atomic kept in step with them.
public final class SMTPChaos: Sendable {
    /// What a scope was given, and what is left of it.
    public struct Rules: Sendable {
        /// The seed its probabilities draw from.
        public let seed: UInt64
        /// The rules and their remaining counts.
        public fileprivate(set) var set: SMTPChaosRuleSet<SMTPChaosSeededRandom>
    }

    private let scopes = Mutex<[SMTPChaosScope: Rules]>([:])
    private let armed = Atomic<Bool>(false)
    /// Told of each fault injected (the metric), outside the lock; must be quick.
    private let onInjection: @Sendable (SMTPChaosRule.Stage, SMTPChaosRule.Action) -> Void

    /// - Parameter onInjection: told of each fault injected (the metric), on the session's loop; must not block.
    public init(onInjection: @escaping @Sendable (SMTPChaosRule.Stage, SMTPChaosRule.Action) -> Void = { _, _ in }) {
        self.onInjection = onInjection
    }

    /// Whether any scope holds a rule that can still fire: the one check a session makes when nothing is set.
    public var isArmed: Bool { armed.load(ordering: .relaxed) }

    /// Replaces `scope`'s rules with `rules`, their probabilities drawn from `seed` (from its first number on).
    public func set(_ rules: [SMTPChaosRule], seed: UInt64, for scope: SMTPChaosScope) {
        scopes.withLock { scopes in
            scopes[scope] = Rules(seed: seed, set: SMTPChaosRuleSet(rules, random: SMTPChaosSeededRandom(seed: seed)))
            armed.store(scopes.values.contains { $0.set.isLive }, ordering: .relaxed)
        }
    }

    /// Removes `scope`'s rules.
    public func clear(_ scope: SMTPChaosScope) {
        scopes.withLock { scopes in
            scopes[scope] = nil
            armed.store(scopes.values.contains { $0.set.isLive }, ordering: .relaxed)
        }
    }

    /// `scope`'s rules and what is left of them; nil when it has none.
    public func rules(for scope: SMTPChaosScope) -> Rules? {
        scopes.withLock { $0[scope] }
    }

    /// What `scope`'s rules do at `point` (counted, and reported to the metric); nil for nothing.
    public func decide(_ point: SMTPChaosPoint, in scope: SMTPChaosScope) -> SMTPChaosRule.Action? {
        guard isArmed else { return nil }
        let action: SMTPChaosRule.Action? = scopes.withLock { scopes in
            guard var rules = scopes[scope] else { return nil }
            let action = rules.set.decide(point)
            scopes[scope] = rules  // its source moved on even when nothing fired
            if action != nil, !rules.set.isLive {
                armed.store(scopes.values.contains { $0.set.isLive }, ordering: .relaxed)
            }
            return action
        }
        if let action { onInjection(point.stage, action) }
        return action
    }
}

/// Which rules an SMTP server's sessions follow: ``SMTPServerConfiguration/chaos``.
public struct SMTPChaosTarget: Sendable {
    /// How a session finds its scope.
    public enum Scoping: Sendable, Equatable {
        /// Every session follows the server's rules (the ingest port).
        case server
        /// A session follows the rules of the Pro user it authenticated as
        /// (``SMTPMailSink/chaosScope(ofIdentity:)``); before that, none.
        case authenticatedUser
    }

    public let chaos: SMTPChaos
    public let scoping: Scoping

    public init(_ chaos: SMTPChaos, scoping: Scoping) {
        self.chaos = chaos
        self.scoping = scoping
    }
}
