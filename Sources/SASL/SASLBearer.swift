/// The user and access token of an OAuth SASL message: `OAUTHBEARER` (RFC 7628 §3.1: a GS2 header naming the
/// authorization identity, then `auth=Bearer <token>` among key-value pairs, each ended by `0x01`) or Google's
/// `XOAUTH2` (`user=<user>` 0x01 `auth=Bearer <token>` 0x01 0x01). Parsing only: the token is checked by whoever signs
/// in (IMAP's, POP3's driver).
public struct SASLBearer: Sendable, Equatable {
    /// The user the client names: OAUTHBEARER's `a=` authorization identity (`=2C` and `=3D` decoded), XOAUTH2's
    /// `user=`; nil when OAUTHBEARER names none (the token's own default then).
    public var user: String?
    /// The bearer token, as sent.
    public var token: String

    public init(user: String?, token: String) {
        self.user = user
        self.token = token
    }

    /// An `OAUTHBEARER` client message; nil when it is not one (no `n`/`y` GS2 flag, channel binding asked for, no
    /// `auth=Bearer`).
    public init?(oauthBearer bytes: [UInt8]) {
        let fields = bytes.split(separator: 0x01, omittingEmptySubsequences: false)
        guard let header = fields.first else { return nil }
        let parts = header.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        // gs2-header = gs2-cb-flag "," [ authzid ] "," : "n" or "y", never "p=" (no channel binding offered).
        guard parts.count == 3, parts[0] == [UInt8(ascii: "n")] || parts[0] == [UInt8(ascii: "y")], parts[2].isEmpty
        else { return nil }
        var user: String?
        if !parts[1].isEmpty {
            guard parts[1].starts(with: Array("a=".utf8)) else { return nil }
            guard let name = Self.saslName(parts[1].dropFirst(2)) else { return nil }
            user = name
        }
        guard let token = Self.bearer(in: fields.dropFirst()) else { return nil }
        self.init(user: user, token: token)
    }

    /// An `XOAUTH2` client message; nil when it is not one (no `user=` or no `auth=Bearer`).
    public init?(xoauth2 bytes: [UInt8]) {
        let fields = bytes.split(separator: 0x01, omittingEmptySubsequences: false)
        guard let first = fields.first, first.starts(with: Array("user=".utf8)), first.count > 5,
            let token = Self.bearer(in: fields.dropFirst())
        else { return nil }
        self.init(user: String(decoding: first.dropFirst(5), as: UTF8.self), token: token)
    }

    /// A GS2 `saslname` decoded: `=2C` is `,` and `=3D` is `=` (RFC 5801 §4); nil for any other `=`.
    private static func saslName(_ bytes: ArraySlice<UInt8>) -> String? {
        var decoded: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "=") {
                let escape = Array(bytes[(index + 1)..<min(index + 3, bytes.endIndex)])
                if escape == Array("2C".utf8) {
                    decoded.append(UInt8(ascii: ","))
                } else if escape == Array("3D".utf8) {
                    decoded.append(UInt8(ascii: "="))
                } else {
                    return nil
                }
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// The token of the `auth=Bearer <token>` pair among `pairs` (the scheme without case, RFC 6750 §2.1).
    private static func bearer(in pairs: ArraySlice<ArraySlice<UInt8>>) -> String? {
        for pair in pairs where pair.starts(with: Array("auth=".utf8)) {
            let value = String(decoding: pair.dropFirst(5), as: UTF8.self)
            guard value.count > 7, value.prefix(7).lowercased() == "bearer " else { return nil }  // ASCII only
            let token = String(value.dropFirst(7))
            return token.isEmpty || token.contains(" ") ? nil : token
        }
        return nil
    }
}
