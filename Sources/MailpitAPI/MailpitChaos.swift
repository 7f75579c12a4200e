import JSON

/// One of Mailpit's chaos triggers (`internal/smtpd/chaos`, `ChaosTrigger`): the SMTP code to answer and the chance,
/// out of 100, that a command gets it instead of its own reply.
public struct MailpitChaosTrigger: Sendable, Equatable {
    /// The code answered, 400 to 599.
    public var errorCode: Int
    /// The chance out of 100, 0 (never) to 100 (always).
    public var probability: Int

    public init(errorCode: Int, probability: Int) {
        self.errorCode = errorCode
        self.probability = probability
    }
}

/// Mailpit's three triggers (`ChaosTriggers`): `MAIL FROM` (``sender``), each `RCPT TO` (``recipient``) and `AUTH`
/// (``authentication``).
public struct MailpitChaosTriggers: Sendable, Equatable {
    public var sender: MailpitChaosTrigger
    public var recipient: MailpitChaosTrigger
    public var authentication: MailpitChaosTrigger

    public init(sender: MailpitChaosTrigger, recipient: MailpitChaosTrigger, authentication: MailpitChaosTrigger) {
        self.sender = sender
        self.recipient = recipient
        self.authentication = authentication
    }

    /// Mailpit's defaults, every trigger off: 451, 451 and 535 at probability 0 (what `PUT {}` sets).
    public static let off = MailpitChaosTriggers(
        sender: MailpitChaosTrigger(errorCode: 451, probability: 0),
        recipient: MailpitChaosTrigger(errorCode: 451, probability: 0),
        authentication: MailpitChaosTrigger(errorCode: 535, probability: 0))
}

/// Whose chaos triggers a caller reads and sets: the operator's apply to every session of the ingest port, a Pro
/// user's to their own sandbox sessions only.
public enum MailpitChaosScope: Sendable, Equatable {
    /// The operator's: the server's rules.
    case server
    /// Pro user `owner`'s: their sandbox's rules.
    case user(String)
}

/// The port through which `GET`/`PUT /api/v1/chaos` read and set the SMTP failure injection of the server (the
/// composition root fills it with the engine every SMTP listener asks, which this surface does not know).
public protocol MailpitChaosRules: Sendable {
    /// The triggers in force for `scope`: each from the scope's rule for its stage when that rule is one Mailpit's
    /// shape can say (a reply, no pattern, no count), else that trigger's default at probability 0.
    func triggers(for scope: MailpitChaosScope) -> MailpitChaosTriggers

    /// Replaces `scope`'s rules with `triggers` (every trigger at probability 0 clears them).
    func set(_ triggers: MailpitChaosTriggers, for scope: MailpitChaosScope)
}

/// `ChaosTriggers` as Mailpit reads and writes it.
enum MailpitChaosJSON {
    /// The triggers a `PUT` body sets, as Mailpit's `SetFromStruct` reads it: a member left out is that trigger off,
    /// an `ErrorCode` of 0 or none its default code; member names match ignoring case (Go's `encoding/json`).
    /// - Throws: ``MailpitRefusal`` (400, Mailpit's text) for a body that is no JSON object, a member of the wrong
    ///   type, a code outside 400 to 599 or a probability outside 0 to 100.
    static func parse(_ body: MailpitBody) throws -> MailpitChaosTriggers {
        guard !body.isEmpty else { throw MailpitRefusal.badRequest("EOF") }
        var triggers = MailpitChaosTriggers.off
        triggers.sender = try trigger(body, "Sender", default: triggers.sender)
        triggers.recipient = try trigger(body, "Recipient", default: triggers.recipient)
        triggers.authentication = try trigger(body, "Authentication", default: triggers.authentication)
        return triggers
    }

    /// The trigger `name` of `body`, `fallback` (probability 0) when absent.
    private static func trigger(_ body: MailpitBody, _ name: String, default fallback: MailpitChaosTrigger) throws
        -> MailpitChaosTrigger
    {
        guard let members = try body.object(name) else { return fallback }
        let object = JSONValue.object(members)
        let code = try number(object, "ErrorCode", of: name) ?? 0
        let probability = try number(object, "Probability", of: name) ?? 0
        guard code == 0 || (400...599).contains(code) else {
            throw MailpitRefusal.badRequest("error code must be between 400 and 599")
        }
        guard (0...100).contains(probability) else {
            throw MailpitRefusal.badRequest("probability must be between 0 and 100")
        }
        return MailpitChaosTrigger(errorCode: code == 0 ? fallback.errorCode : code, probability: probability)
    }

    /// The whole number `member` of `object` (its name's case ignored); nil when absent or null.
    private static func number(_ object: JSONValue, _ member: String, of trigger: String) throws -> Int? {
        let wanted = member.lowercased()
        guard let value = object.objectValue?.first(where: { $0.0.lowercased() == wanted })?.1, value != .null
        else { return nil }
        guard let number = value.intValue else {
            throw MailpitRefusal.badRequest("\(trigger).\(member) must be a whole number")
        }
        return Int(clamping: number)
    }

    /// `{"Sender": {...}, "Recipient": {...}, "Authentication": {...}}`.
    static func render(_ triggers: MailpitChaosTriggers) -> JSONValue {
        func one(_ trigger: MailpitChaosTrigger) -> JSONValue {
            .object([
                ("ErrorCode", .int(Int64(trigger.errorCode))), ("Probability", .int(Int64(trigger.probability))),
            ])
        }
        return .object([
            ("Sender", one(triggers.sender)), ("Recipient", one(triggers.recipient)),
            ("Authentication", one(triggers.authentication)),
        ])
    }
}
