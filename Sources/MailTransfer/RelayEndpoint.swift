import SMTPClient

/// The smarthost of `relay` mode, parsed from `POSTERN_RELAY_URL`: `smtp://user:password@host:587` (STARTTLS) or
/// `smtps://user:password@host:465` (TLS from the first byte, RFC 8314). The user name and password are
/// percent-decoded; without them the relay is used unauthenticated.
///
/// The password never appears in ``description`` (logs, errors, `postern config` output).
public struct RelayEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// The smarthost's name (or address literal, without brackets).
    public let host: String
    /// Its port: the URL's, else 587 for `smtp` and 465 for `smtps`.
    public let port: Int
    /// `AUTH` credentials, when the URL has a user.
    public let credentials: SMTPCredentials?
    /// `smtps`: TLS starts with the connection; `smtp`: STARTTLS.
    public let implicitTLS: Bool

    /// An endpoint from its parts.
    public init(host: String, port: Int, credentials: SMTPCredentials?, implicitTLS: Bool) {
        self.host = host
        self.port = port
        self.credentials = credentials
        self.implicitTLS = implicitTLS
    }

    /// Parses a relay URL: scheme `smtp` or `smtps`, optional `user[:password]@`, a host, an optional port; no path
    /// other than `/`, no query or fragment.
    /// - Throws: ``RelayURLError`` saying what is wrong, never echoing the password.
    public init(url text: String) throws(RelayURLError) {
        guard let schemeEnd = text.range(of: "://") else { throw .notAURL }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard !scheme.isEmpty, scheme.count <= 16, scheme.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw .notAURL
        }
        guard scheme == "smtp" || scheme == "smtps" else { throw .unsupportedScheme(scheme) }
        var rest = Substring(text[schemeEnd.upperBound...])
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("/"), !rest.contains("?"), !rest.contains("#") else { throw .unexpectedPath }
        var credentials: SMTPCredentials?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let parts = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let user = Self.percentDecoded(parts[0]), !user.isEmpty else { throw .invalidUserInfo }
            guard let password = parts.count > 1 ? Self.percentDecoded(parts[1]) : "" else { throw .invalidUserInfo }
            credentials = SMTPCredentials(username: user, password: password)
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw .invalidHost }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidHost }
                portText = after.dropFirst()
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty, host.utf8.count <= 253,
            host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.:".contains($0)) })
        else { throw .invalidHost }
        let implicitTLS = scheme == "smtps"
        var port = implicitTLS ? 465 : 587
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number), portText.allSatisfy(\.isNumber) else {
                throw .invalidPort
            }
            port = number
        }
        self.init(host: host.lowercased(), port: port, credentials: credentials, implicitTLS: implicitTLS)
    }

    /// The URL with the password replaced by `***`.
    public var description: String {
        let user = credentials.map { "\($0.username):***@" } ?? ""
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(implicitTLS ? "smtps" : "smtp")://\(user)\(shownHost):\(port)"
    }

    /// `%XX` sequences decoded as UTF-8; nil for a malformed escape or a control character.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// Why `POSTERN_RELAY_URL` does not parse. No case carries the URL (it may hold a password).
public enum RelayURLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No `scheme://`.
    case notAURL
    /// A scheme other than `smtp` or `smtps`.
    case unsupportedScheme(String)
    /// A path, query or fragment after the host.
    case unexpectedPath
    /// A user or password with a malformed `%` escape or a control character, or an empty user.
    case invalidUserInfo
    /// No host, or one with characters a host name cannot have.
    case invalidHost
    /// A port that is not 1 to 65535.
    case invalidPort

    /// What is wrong, for the configuration error.
    public var description: String {
        switch self {
        case .notAURL: "must be a URL such as smtp://user:password@relay.example.com:587"
        case .unsupportedScheme(let scheme): "must use smtp:// or smtps:// (got \"\(scheme)\")"
        case .unexpectedPath: "must have no path, query or fragment"
        case .invalidUserInfo: "has a malformed user name or password (percent-encode reserved characters)"
        case .invalidHost: "has no valid host"
        case .invalidPort: "has a port outside 1 to 65535"
        }
    }
}
