#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address as its network-order bytes (4 or 16). IPv4-mapped IPv6 (`::ffff:a.b.c.d`)
/// is stored as the IPv4 address, so that one client counts once whichever way it connected.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// Whether this is an IPv4 address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// Parses textual IPv4 or IPv6; accepts `[v6]`, `[v6]:port`, `v4:port` and a `%zone` suffix,
    /// which are dropped. `nil` for anything else.
    public init?(_ text: String) {
        var text = text.trimmingSpaces()
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            text = String(text[text.index(after: text.startIndex)..<close])
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            text = String(text[..<colon])
        }
        if let percent = text.firstIndex(of: "%") { text = String(text[..<percent]) }
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        if let v4 = Self.parse(text, family: AF_INET, size: 4) {
            bytes = v4
        } else if let v6 = Self.parse(text, family: AF_INET6, size: 16) {
            let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
            bytes = Array(v6.prefix(12)) == mappedPrefix ? Array(v6.suffix(4)) : v6
        } else {
            return nil
        }
    }

    /// Creates an address from 4 or 16 network-order bytes; `nil` for other lengths.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Dotted quad for IPv4, hex groups for IPv6 (not compressed; for logs and tests).
    public var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }

    /// The rate-limit identity of this client: the whole IPv4 address, or the /64 of an IPv6 one.
    public var rateLimitKey: [UInt8] { isIPv4 ? bytes : Array(bytes.prefix(8)) }

    private static func parse(_ text: String, family: Int32, size: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: size)
        let result = text.withCString { pointer in
            buffer.withUnsafeMutableBytes { inet_pton(family, pointer, $0.baseAddress) }
        }
        return result == 1 ? buffer : nil
    }
}

extension String {
    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
