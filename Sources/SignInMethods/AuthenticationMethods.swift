/// How a session was earned (issue 88 item 3): the ways the person proved themselves at its sign-in, as an OpenID
/// Connect ID token's `amr` claim names them (RFC 8176): `pwd` a password, `hwk` a passkey (a key bound to hardware or
/// a platform authenticator), `otp` a one-time code (TOTP or a recovery code), `fed` a sign-in provider; and `mfa`
/// when two or more were used. Stored with the session (`owner_sessions.methods`) as its ``stored`` text.
public struct AuthenticationMethods: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    /// Memberwise.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A password (`pwd`).
    public static let password = AuthenticationMethods(rawValue: 1)
    /// A passkey (`hwk`).
    public static let passkey = AuthenticationMethods(rawValue: 2)
    /// A one-time code: TOTP or a recovery code (`otp`).
    public static let oneTimeCode = AuthenticationMethods(rawValue: 4)
    /// A sign-in provider (`fed`).
    public static let provider = AuthenticationMethods(rawValue: 8)

    private static let names: [(AuthenticationMethods, String)] = [
        (.password, "pwd"), (.passkey, "hwk"), (.oneTimeCode, "otp"), (.provider, "fed"),
    ]

    /// The `amr` values, in a fixed order, with `mfa` last when two or more methods were used.
    public var amr: [String] {
        let values = Self.names.filter { contains($0.0) }.map(\.1)
        return values.count >= 2 ? values + ["mfa"] : values
    }

    /// Whether a second factor was used besides the first (two methods or more).
    public var isMultiFactor: Bool { amr.contains("mfa") }

    /// The stored text: the ``amr`` values separated by spaces.
    public var stored: String { amr.joined(separator: " ") }

    /// The methods a stored text names (unknown words, and `mfa`, which is derived, are ignored).
    public init(stored: String) {
        var methods: AuthenticationMethods = []
        for word in stored.split(separator: " ") {
            if let known = Self.names.first(where: { $0.1 == word }) { methods.insert(known.0) }
        }
        self = methods
    }
}
