import AuthCrypto
import JSON

/// The claims of a token: an ordered JSON object, serialized in the order the members were added.
public struct JWTClaims: Sendable, Equatable {
    /// The members in order; names are unique.
    public private(set) var members: [(String, JSONValue)]

    /// Claims from `members`; a repeated name keeps its first position and its last value.
    public init(_ members: [(String, JSONValue)] = []) {
        self.members = []
        self.members.reserveCapacity(members.count)
        for (name, value) in members { self[name] = value }
    }

    /// The claims every Postern token carries, in this order: `iss`, `sub` (when given), `iat`, `exp`,
    /// `jti`, `pur`. Add surface-specific claims with the subscript.
    /// - Parameters:
    ///   - issuer: `iss`.
    ///   - subject: `sub`, or nil to leave it out.
    ///   - purpose: `pur`.
    ///   - issuedAt: `iat`, Unix seconds.
    ///   - ttl: seconds until `exp`.
    ///   - jti: the token id; by default 32 lowercase hex characters (128 random bits).
    public init(
        issuer: String, subject: String? = nil, purpose: JWTPurpose, issuedAt: Int64, ttl: Int64,
        jti: String = SecureRandom.identifier(byteCount: 16)
    ) {
        var members: [(String, JSONValue)] = [("iss", .string(issuer))]
        members.reserveCapacity(8)
        if let subject { members.append(("sub", .string(subject))) }
        members.append(("iat", .int(issuedAt)))
        members.append(("exp", .int(issuedAt + ttl)))
        members.append(("jti", .string(jti)))
        members.append(("pur", .string(purpose.rawValue)))
        self.members = members
    }

    /// Claims from a parsed object, as given.
    init(validated members: [(String, JSONValue)]) {
        self.members = members
    }

    /// Compares members in order.
    public static func == (lhs: JWTClaims, rhs: JWTClaims) -> Bool {
        JSONValue.object(lhs.members) == JSONValue.object(rhs.members)
    }

    /// The value of claim `name`; setting replaces in place or appends, setting nil removes.
    public subscript(name: String) -> JSONValue? {
        get { members.first { $0.0 == name }?.1 }
        set {
            let index = members.firstIndex { $0.0 == name }
            switch (index, newValue) {
            case (let index?, let value?): members[index].1 = value
            case (let index?, nil): members.remove(at: index)
            case (nil, let value?): members.append((name, value))
            case (nil, nil): break
            }
        }
    }

    /// `iss`, when it is a string.
    public var iss: String? { self["iss"]?.stringValue }
    /// `sub`, when it is a string.
    public var sub: String? { self["sub"]?.stringValue }
    /// `jti`, when it is a string.
    public var jti: String? { self["jti"]?.stringValue }
    /// `pur` (Postern's purpose claim), when it is a string.
    public var pur: String? { self["pur"]?.stringValue }
    /// `exp` in Unix seconds, when it is an integer.
    public var exp: Int64? { self["exp"]?.intValue }
    /// `iat` in Unix seconds, when it is an integer.
    public var iat: Int64? { self["iat"]?.intValue }
    /// `nbf` in Unix seconds, when it is an integer.
    public var nbf: Int64? { self["nbf"]?.intValue }

    /// The claims as a JSON object.
    public var json: JSONValue { .object(members) }
}
