import OutboundSocket

/// An absolute `http` or `https` URL, parsed strictly enough that what is vetted is what is reached.
///
/// Refused (``FetchError/invalidURL``): other schemes, missing `//`, empty hosts, control characters,
/// spaces, backslashes, non-ASCII hosts, percent signs in hosts, bad ports, and hosts that end in a
/// number but are not a valid IPv4 address. Userinfo (`http://user@host/`) is split off at the last
/// `@` and never sent; the host after it is the one vetted and contacted.
public struct FetchURL: Sendable, Equatable, CustomStringConvertible {
    /// How the host was written: a DNS name (lowercased, without a trailing dot), an IPv4 literal (any spelling) or
    /// a bracketed IPv6 literal.
    public typealias Host = RemoteHost

    /// `http` or `https`.
    public let scheme: String
    /// The host to resolve (or the literal address to reach).
    public let host: Host
    /// The port, defaulted from the scheme.
    public let port: Int
    /// The request target: path (at least `/`) and query, without the fragment.
    public let target: String

    /// Whether this URL uses TLS.
    public var isHTTPS: Bool { scheme == "https" }

    /// The host as text for `Host:`, SNI and certificate checks: the name, or the literal address
    /// (IPv6 without brackets).
    public var hostText: String {
        switch host {
        case .name(let name): return name
        case .address(let address): return address.description
        }
    }

    /// The `Host` header value: host, brackets for IPv6, and the port when it is not the default.
    public var hostHeader: String {
        var text = hostText
        if case .address(.v6) = host { text = "[\(text)]" }
        let defaultPort = isHTTPS ? 443 : 80
        return port == defaultPort ? text : "\(text):\(port)"
    }

    /// The normalized URL text.
    public var description: String { "\(scheme)://\(hostHeader)\(target)" }

    /// Parses an absolute URL.
    /// - Throws: ``FetchError/invalidURL`` for anything but a well-formed absolute http(s) URL.
    public init(parsing text: String) throws(FetchError) {
        let trimmed = text.trimmingASCIIWhitespace()
        guard !trimmed.isEmpty, trimmed.utf8.count <= 2048 else { throw .invalidURL }
        for byte in trimmed.utf8 where byte <= 0x20 || byte == 0x7f || byte == UInt8(ascii: "\\") {
            throw .invalidURL
        }
        // Delimiters are found byte by byte, never as Characters: a delimiter followed by a combining
        // mark ("#\u{301}") is one Character that equals no delimiter, so a Character search would let
        // the fragment or the authority run on.
        guard let colon = trimmed.utf8.firstIndex(of: UInt8(ascii: ":")) else { throw .invalidURL }
        let scheme = trimmed[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { throw .invalidURL }
        let rest = trimmed[trimmed.utf8.index(after: colon)...]
        guard rest.utf8.starts(with: "//".utf8) else { throw .invalidURL }
        let afterSlashes = rest[rest.utf8.index(rest.startIndex, offsetBy: 2)...]
        let authorityEnd =
            afterSlashes.utf8.firstIndex {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            }
            ?? afterSlashes.endIndex
        var authority = afterSlashes[..<authorityEnd]
        var target = afterSlashes[authorityEnd...]
        if let hash = target.utf8.firstIndex(of: UInt8(ascii: "#")) { target = target[..<hash] }
        let path = target.utf8.first == UInt8(ascii: "/") ? String(target) : "/" + target
        if let at = authority.utf8.lastIndex(of: UInt8(ascii: "@")) {
            authority = authority[authority.utf8.index(after: at)...]
        }

        var hostPart = authority
        var portText: Substring? = nil
        if hostPart.utf8.first == UInt8(ascii: "[") {
            guard let close = hostPart.utf8.firstIndex(of: UInt8(ascii: "]")) else { throw .invalidURL }
            let afterClose = hostPart.utf8.index(after: close)
            let after = hostPart[afterClose...]
            if !after.isEmpty {
                guard after.utf8.first == UInt8(ascii: ":") else { throw .invalidURL }
                portText = after[after.utf8.index(after: after.startIndex)...]
            }
            hostPart = hostPart[..<afterClose]
        } else if let portColon = hostPart.utf8.lastIndex(of: UInt8(ascii: ":")) {
            portText = hostPart[hostPart.utf8.index(after: portColon)...]
            hostPart = hostPart[..<portColon]
        }

        var port = scheme == "https" ? 443 : 80
        if let portText, !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int(portText), (1...65535).contains(value)
            else { throw .invalidURL }
            port = value
        }

        self.scheme = scheme
        self.port = port
        self.host = try FetchURL.parseHost(String(hostPart))
        self.target = FetchURL.encodeTarget(path)
    }

    private init(scheme: String, host: Host, port: Int, target: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.target = target
    }

    /// Resolves a `Location` header value against this URL (RFC 3986 5.2, without dot-segment
    /// removal: the origin sees the path as sent).
    /// - Throws: ``FetchError/invalidURL`` when the result is not a valid http(s) URL.
    public func resolving(_ reference: String) throws(FetchError) -> FetchURL {
        let ref = reference.trimmingASCIIWhitespace()
        guard !ref.isEmpty else { throw .invalidURL }
        if ref.utf8.starts(with: "//".utf8) { return try FetchURL(parsing: "\(scheme):\(ref)") }
        if let colon = ref.utf8.firstIndex(of: UInt8(ascii: ":")),
            ref[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }),
            ref[..<colon].first?.isLetter == true
        {
            return try FetchURL(parsing: ref)
        }
        for byte in ref.utf8 where byte <= 0x20 || byte == 0x7f || byte == UInt8(ascii: "\\") {
            throw .invalidURL
        }
        var relative = ref
        if let hash = relative.utf8.firstIndex(of: UInt8(ascii: "#")) { relative = String(relative[..<hash]) }
        let newTarget: String
        if relative.utf8.first == UInt8(ascii: "/") {
            newTarget = relative
        } else if relative.utf8.first == UInt8(ascii: "?") {
            let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
            newTarget = path + relative
        } else if relative.isEmpty {
            newTarget = target
        } else {
            let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let directory = path[...(path.lastIndex(of: "/") ?? path.startIndex)]
            newTarget = directory + relative
        }
        return FetchURL(scheme: scheme, host: host, port: port, target: FetchURL.encodeTarget(newTarget))
    }

    private static func parseHost(_ raw: String) throws(FetchError) -> Host {
        guard !raw.isEmpty else { throw .invalidURL }
        if raw.utf8.first == UInt8(ascii: "[") {
            let inside = raw.utf8.dropFirst().dropLast()
            guard raw.utf8.last == UInt8(ascii: "]"),
                let bytes = RemoteAddress.parseIPv6(String(decoding: inside, as: UTF8.self))
            else {
                throw .invalidURL
            }
            return .address(.v6(bytes))
        }
        let lower = raw.lowercased()
        for scalar in lower.unicodeScalars {
            let ok =
                scalar.isASCII
                && (("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "-" || scalar == "." || scalar == "_")
            guard ok else { throw .invalidURL }
        }
        switch RemoteAddress.parseIPv4(lower) {
        case .address(let value): return .address(.v4(value))
        case .invalid: throw .invalidURL
        case .notIPv4: break
        }
        var name = lower
        if name.hasSuffix(".") { name.removeLast() }
        // One trailing dot (the root) is dropped; a second one would be an empty label.
        guard !name.isEmpty, name.count <= 253, !name.hasPrefix("."), !name.hasSuffix("."), !name.contains("..")
        else { throw .invalidURL }
        return .name(name)
    }

    /// Percent-encodes what may not appear raw in a request target (non-ASCII bytes, `"`, `<`, `>`,
    /// backtick, braces, `|`, `^`), leaving existing escapes alone.
    private static func encodeTarget(_ target: String) -> String {
        var out = ""
        for byte in target.utf8 {
            if byte >= 0x80 || byte <= 0x20 || "\"<>`{}|^".utf8.contains(byte) {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            } else {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }
}

extension StringProtocol {
    /// Drops leading and trailing spaces, tabs, CRs and LFs, byte by byte (so a trailing "\r\n",
    /// which is one Character, goes too).
    func trimmingASCIIWhitespace() -> String {
        let text = String(self)
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0a || $0 == 0x0d }
        guard let first = text.utf8.firstIndex(where: { !isSpace($0) }),
            let last = text.utf8.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(text[first..<text.utf8.index(after: last)])
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
