import JSON

/// The `claims` request parameter (OpenID Connect Core 1.0 section 5.5), limited to what Postern can say of an owner:
/// `email`, `email_verified` and `name`, asked for the ID token (`id_token`), the userinfo endpoint (`userinfo`) or
/// both. Every other claim name, and every other member, is ignored (section 5.5: a provider ignores what it does not
/// support). Pure: parsed from the parameter's text, kept with the sign-in in a normal form (``normalJSON``).
///
/// Rules, in the order the parser applies them:
/// 1. at most ``maximumLength`` bytes of JSON, an object, at most five levels deep;
/// 2. `id_token` and `userinfo`, when present, are objects; any other top-level member is ignored;
/// 3. a claim of ours is `null` or an object whose `essential` (if any) is a boolean, whose `values` (if any) is an
///    array, and whose `value` is any JSON; a claim of another name is ignored whatever its value;
/// 4. `essential` asks for nothing more than a voluntary claim here (section 5.5.1): Postern releases every claim it
///    can give once the owner allowed it, and a claim it cannot give (a `value` the owner's does not equal) is simply
///    absent, the sign-in going on;
/// 5. `value` and `values` release the claim only when the owner's equals the value or one of the values.
public struct OIDCClaimsRequest: Sendable, Equatable {
    /// The claims that may be asked for by name.
    public enum Name: String, Sendable, CaseIterable {
        /// The owner's email.
        case email
        /// Whether that email is proven.
        case emailVerified = "email_verified"
        /// The owner's name: their email (owners have no other name, as `preferred_username`).
        case name

        /// The scope whose consent covers the claim (`email` or `profile`).
        public var scope: String {
            switch self {
            case .email, .emailVerified: "email"
            case .name: "profile"
            }
        }
    }

    /// One claim asked for: with no values, any value of the owner's is released; with values, only one of them.
    public struct Claim: Sendable, Equatable {
        /// The claim.
        public let name: Name
        /// `essential` (section 5.5.1), kept for the record; it changes nothing released.
        public let essential: Bool
        /// `value` (one element) or `values`; nil: any.
        public let values: [JSONValue]?

        public init(name: Name, essential: Bool = false, values: [JSONValue]? = nil) {
            self.name = name
            self.essential = essential
            self.values = values
        }
    }

    /// Where a claim is asked for.
    public enum Target: String, Sendable, CaseIterable {
        /// The ID token (`id_token`).
        case idToken = "id_token"
        /// The userinfo endpoint's answer (`userinfo`).
        case userinfo
    }

    /// Why a `claims` parameter was refused: `invalid_request` at the redirect URI.
    public enum Failure: Error, Equatable {
        /// Not JSON, not an object, too long or too deep, or a member of ours of the wrong type.
        case malformed(String)
    }

    /// Longest `claims` parameter read, bytes.
    public static let maximumLength = 4096

    /// The claims asked for the ID token, in ``Name`` order.
    public let idToken: [Claim]
    /// The claims asked for the userinfo endpoint, in ``Name`` order.
    public let userinfo: [Claim]

    /// No claims asked for.
    public static let none = OIDCClaimsRequest(idToken: [], userinfo: [])

    public init(idToken: [Claim], userinfo: [Claim]) {
        self.idToken = idToken
        self.userinfo = userinfo
    }

    /// Whether nothing is asked for.
    public var isEmpty: Bool { idToken.isEmpty && userinfo.isEmpty }

    /// The claims asked for `target`.
    public func claims(for target: Target) -> [Claim] { target == .idToken ? idToken : userinfo }

    /// The scopes whose consent the asked claims need (`email`, `profile`), in that order.
    public var scopes: [String] {
        let needed = Set((idToken + userinfo).map(\.name.scope))
        return ["email", "profile"].filter(needed.contains)
    }

    /// Parses the parameter's text (rules 1 to 3).
    /// - Throws: ``Failure/malformed(_:)``.
    public init(parameter text: String) throws(Failure) {
        guard text.utf8.count <= Self.maximumLength else { throw .malformed("claims is too long.") }
        guard let parsed = try? JSONValue.parse(Array(text.utf8), limits: .init(maximumDepth: 5)),
            case .object(let members) = parsed
        else { throw .malformed("claims must be a JSON object.") }
        var lists: [Target: [Claim]] = [:]
        for target in Target.allCases {
            guard let value = members.last(where: { $0.0 == target.rawValue })?.1 else { continue }
            guard case .object(let asked) = value else { throw .malformed("claims.\(target.rawValue) must be an object.") }
            var claims: [Claim] = []
            for name in Name.allCases {
                guard let request = asked.last(where: { $0.0 == name.rawValue })?.1 else { continue }
                claims.append(try Self.claim(name, request, in: target))
            }
            lists[target] = claims
        }
        self.init(idToken: lists[.idToken] ?? [], userinfo: lists[.userinfo] ?? [])
    }

    /// One claim's request: `null`, or `{"essential": bool, "value": any, "values": [any]}` (rule 3).
    private static func claim(_ name: Name, _ request: JSONValue, in target: Target) throws(Failure) -> Claim {
        let path = "claims.\(target.rawValue).\(name.rawValue)"
        switch request {
        case .null: return Claim(name: name)
        case .object(let members):
            var essential = false
            var values: [JSONValue]?
            for (member, value) in members {
                switch member {
                case "essential":
                    guard case .bool(let flag) = value else { throw .malformed("\(path).essential must be true or false.") }
                    essential = flag
                case "value": values = [value]
                case "values":
                    guard case .array(let list) = value else { throw .malformed("\(path).values must be an array.") }
                    values = list
                default: continue
                }
            }
            return Claim(name: name, essential: essential, values: values)
        default: throw .malformed("\(path) must be null or an object.")
        }
    }

    /// What `target` releases of the owner's claims `available` (rules 4 and 5), in ``Name`` order.
    public func released(_ target: Target, from available: [Name: JSONValue]) -> [(String, JSONValue)] {
        claims(for: target).compactMap { claim in
            guard let value = available[claim.name] else { return nil }
            if let values = claim.values, !values.contains(value) { return nil }
            return (claim.name.rawValue, value)
        }
    }

    // MARK: - Normal form

    /// The request as JSON in its normal form: `{"id_token":{...},"userinfo":{...}}`, each target only when it asks
    /// for something, each claim `null` or `{"essential":true,"values":[...]}` with only what it carries. Reading
    /// it back (``init(normalJSON:)``) gives the same request.
    public var normalJSON: String {
        var members: [(String, JSONValue)] = []
        for target in Target.allCases where !claims(for: target).isEmpty {
            members.append((target.rawValue, .object(claims(for: target).map { ($0.name.rawValue, Self.json($0)) })))
        }
        return String(decoding: JSONValue.object(members).serialize(), as: UTF8.self)
    }

    /// A request read back from ``normalJSON`` (a stored row); nil text is no request.
    public init(normalJSON text: String?) {
        guard let text, let request = try? OIDCClaimsRequest(parameter: text) else {
            self = .none
            return
        }
        self = request
    }

    private static func json(_ claim: Claim) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if claim.essential { members.append(("essential", .bool(true))) }
        if let values = claim.values { members.append(("values", .array(values))) }
        return members.isEmpty ? .null : .object(members)
    }
}
