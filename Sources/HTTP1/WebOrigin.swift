/// A web origin as RFC 6454 section 6.2 serializes it: `scheme://host[:port]`, scheme and host lowercased, the
/// scheme's default port (80 for http, 443 for https) left out. Two spellings of one origin compare equal.
public struct WebOrigin: Hashable, Sendable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    /// The port when it is not the scheme's default.
    public let port: Int?

    /// The origin of an absolute URL or of an `Origin` header's value; nil for anything else, `null` included.
    /// User information in the authority is dropped, as browsers never send it in an origin.
    public init?(_ url: some StringProtocol) {
        let text = Substring(url)
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return nil }
        let scheme = text[..<colon].lowercased()
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        var authority = text[text.index(colon, offsetBy: 3)...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host: Substring
        let portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { return nil }
            portText = rest.isEmpty ? nil : rest.dropFirst()
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
            portText = nil
        }
        guard !host.isEmpty, host.hasPrefix("[") || !host.contains(":") else { return nil }
        var port: Int?
        if let portText, !portText.isEmpty {
            guard portText.utf8.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                let number = Int(portText), (1...65535).contains(number)
            else { return nil }
            port = number
        }
        let defaultPort = ["http": 80, "https": 443, "ws": 80, "wss": 443][scheme]
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port == defaultPort ? nil : port
    }

    public var description: String { scheme + "://" + host + (port.map { ":\($0)" } ?? "") }
}
