import JSON
import SMTPServer

/// The failure-injection rules as the APIs read and write them (docs/api/chaos.md):
///
///     {"seed": 42, "rules": [{"stage": "rcpt", "rcpt_to": "*@example.org", "action": "reply", "code": 451,
///       "enhanced_code": "4.7.1", "text": "Greylisted", "probability": 100, "times": 2}]}
///
/// `stage` is `connect`, `helo`, `auth`, `mail`, `rcpt`, `data` or `after-data`; `action` `reply` (with `code` 400
/// to 599, optional `enhanced_code` and `text`), `disconnect` or `stall` (with `seconds`); `mail_from` and `rcpt_to`
/// are patterns (`*`, `?`); `probability` (0 to 100, default 100) and `times` (default: every time) are optional;
/// `seed` (0 to 2^53) too: without one a seed is chosen and answered, so the run can be repeated.
enum ChaosRulesJSON {
    /// Why a body was refused: the member at fault and what it must be (`{"error":"invalid_request","parameter",
    /// "message"}`).
    struct Invalid: Error, Equatable {
        let parameter: String
        let message: String
    }

    /// The largest body a rule set may take: 64 KiB (100 rules of long patterns).
    static let bodyLimit = 64 * 1024
    /// The largest seed: 2^53, the largest integer every JSON reader keeps exactly.
    static let maxSeed: Int64 = 1 << 53

    /// The rules and seed `body` holds; the seed nil when none was given.
    /// - Throws: ``Invalid`` naming the member at fault (`rules[2].code`).
    static func parse(_ body: [UInt8]) throws(Invalid) -> (rules: [SMTPChaosRule], seed: UInt64?) {
        guard let value = try? JSONValue.parse(body, limits: JSONValue.Limits(maximumBytes: bodyLimit)),
            value.objectValue != nil
        else { throw Invalid(parameter: "body", message: "the body must be a JSON object") }
        var seed: UInt64?
        if let given = value["seed"], given != .null {
            guard let number = given.intValue, (0...maxSeed).contains(number) else {
                throw Invalid(parameter: "seed", message: "seed must be a whole number from 0 to \(maxSeed)")
            }
            seed = UInt64(number)
        }
        guard let list = value["rules"]?.arrayValue else {
            throw Invalid(parameter: "rules", message: "rules must be a list of rule objects")
        }
        guard list.count <= SMTPChaosRule.Limits.maxRules else {
            throw Invalid(parameter: "rules", message: "at most \(SMTPChaosRule.Limits.maxRules) rules")
        }
        var rules: [SMTPChaosRule] = []
        for (index, item) in list.enumerated() {
            do {
                rules.append(try rule(item))
            } catch {
                throw Invalid(parameter: "rules[\(index)].\(error.field)", message: error.message)
            }
        }
        return (rules, seed)
    }

    /// One rule object.
    private static func rule(_ item: JSONValue) throws(SMTPChaosRule.Invalid) -> SMTPChaosRule {
        guard item.objectValue != nil else { throw SMTPChaosRule.Invalid("", "each rule must be an object") }
        let stages = SMTPChaosRule.Stage.allCases.map(\.rawValue).joined(separator: ", ")
        guard let stageName = item["stage"]?.stringValue, let stage = SMTPChaosRule.Stage(rawValue: stageName) else {
            throw SMTPChaosRule.Invalid("stage", "stage must be one of \(stages)")
        }
        let action: SMTPChaosRule.Action
        switch item["action"]?.stringValue {
        case "reply":
            guard let code = item["code"]?.intValue else {
                throw SMTPChaosRule.Invalid("code", "code must be from 400 to 599")
            }
            var enhanced: SMTPChaosRule.EnhancedCode?
            if let text = try optionalString(item, "enhanced_code") {
                guard let parsed = SMTPChaosRule.EnhancedCode(text) else {
                    throw SMTPChaosRule.Invalid("enhanced_code", "enhanced_code must be class.subject.detail, as 4.7.1")
                }
                enhanced = parsed
            }
            action = .reply(code: Int(clamping: code), enhanced: enhanced, text: try optionalString(item, "text") ?? "")
        case "disconnect":
            action = .disconnect
        case "stall":
            guard let seconds = item["seconds"]?.intValue else {
                throw SMTPChaosRule.Invalid("seconds", "seconds must be from 1 to \(SMTPChaosRule.Limits.maxStallSeconds)")
            }
            action = .stall(seconds: Int(clamping: seconds))
        default:
            throw SMTPChaosRule.Invalid("action", "action must be reply, disconnect or stall")
        }
        return try SMTPChaosRule(
            stage: stage, action: action, mailFrom: try optionalString(item, "mail_from"),
            recipient: try optionalString(item, "rcpt_to"), probability: try optionalInt(item, "probability") ?? 100,
            times: try optionalInt(item, "times"))
    }

    private static func optionalString(_ item: JSONValue, _ name: String) throws(SMTPChaosRule.Invalid) -> String? {
        guard let value = item[name], value != .null else { return nil }
        guard let text = value.stringValue else { throw SMTPChaosRule.Invalid(name, "\(name) must be a string") }
        return text
    }

    private static func optionalInt(_ item: JSONValue, _ name: String) throws(SMTPChaosRule.Invalid) -> Int? {
        guard let value = item[name], value != .null else { return nil }
        guard let number = value.intValue else { throw SMTPChaosRule.Invalid(name, "\(name) must be a whole number") }
        return Int(clamping: number)
    }

    /// What a scope holds now: `enabled`, its `seed` (null without rules) and each rule with `remaining` (null:
    /// unlimited; 0: spent).
    static func render(_ rules: SMTPChaos.Rules?, enabled: Bool) -> [(String, JSONValue)] {
        guard let rules else { return [("enabled", .bool(enabled)), ("seed", .null), ("rules", .array([]))] }
        let items = zip(rules.set.rules, rules.set.remaining).map { rule, left -> JSONValue in
            var pairs: [(String, JSONValue)] = [("stage", .string(rule.stage.rawValue)), ("action", .string(rule.action.name))]
            switch rule.action {
            case .reply(let code, let enhanced, let text):
                pairs.append(("code", .int(Int64(code))))
                pairs.append(("enhanced_code", enhanced.map { .string($0.description) } ?? .null))
                pairs.append(("text", .string(text)))
            case .disconnect:
                break
            case .stall(let seconds):
                pairs.append(("seconds", .int(Int64(seconds))))
            }
            pairs.append(("mail_from", rule.mailFrom.map { .string($0.description) } ?? .null))
            pairs.append(("rcpt_to", rule.recipient.map { .string($0.description) } ?? .null))
            pairs.append(("probability", .int(Int64(rule.probability))))
            pairs.append(("times", rule.times.map { .int(Int64($0)) } ?? .null))
            pairs.append(("remaining", left.map { .int(Int64($0)) } ?? .null))
            return .object(pairs)
        }
        return [("enabled", .bool(enabled)), ("seed", .int(Int64(rules.seed))), ("rules", .array(items))]
    }
}
