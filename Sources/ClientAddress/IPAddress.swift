#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A client's IPv4 or IPv6 address as its network-order bytes (4 or 16). IPv4-mapped IPv6
/// (`::ffff:a.b.c.d`) is stored as the IPv4 address, so that one client counts once whichever way it
/// connected.
///
/// This parses what a socket or a proxy reports (`inet_pton` spellings only). It is deliberately not
/// OutboundSocket's `RemoteAddress`, which parses URL host spellings (`0177.0.0.1`, `0x7f000001`, `2130706433`) for
/// the outbound address policy: a different concern with different inputs; do not merge the two.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// Whether this is an IPv4 address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// Whether this is a loopback address: `127.0.0.0/8` (IPv4-mapped too, stored as IPv4) or `::1`. The one test of
    /// it for every listener's plaintext rule and the start-up warnings.
    public var isLoopback: Bool {
        isIPv4 ? bytes[0] == 127 : bytes == Self.ipv6Loopback
    }

    private static let ipv6Loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]

    /// Parses textual IPv4 or IPv6; accepts `[v6]`, `[v6]:port`, `v4:port` and a `%zone` suffix,
    /// which are dropped. `nil` for anything else.
    public init?(_ text: String) {
        // Scans UTF-8 bytes, not Characters: this runs for every request (the socket peer's text).
        var text = Self.trimmingBlanks(text)
        if text.utf8.first == UInt8(ascii: "[") {
            guard let close = text.utf8.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            text = String(text[text.utf8.index(after: text.utf8.startIndex)..<close])
        } else {
            var colons = 0
            var firstColon: String.Index?
            for index in text.utf8.indices where text.utf8[index] == UInt8(ascii: ":") {
                colons += 1
                if firstColon == nil { firstColon = index }
            }
            if colons == 1, let colon = firstColon { text = String(text[..<colon]) }
        }
        if let percent = text.utf8.firstIndex(of: UInt8(ascii: "%")) { text = String(text[..<percent]) }
        self.init(literal: text)
    }

    /// Parses exactly one textual IPv4 or IPv6 address (`inet_pton` spellings: no brackets, port, zone or blanks),
    /// as an address written in a record is (SPF's `ip4:` and `ip6:`). `nil` for anything else.
    public init?(literal text: String) {
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
        Self.text(bytes, groups: 8, suffix: "")
    }

    /// The rate-limit identity of this client: the whole IPv4 address, or the /64 of an IPv6 one
    /// (one subscriber usually holds a whole /64 and could otherwise ask from 2^64 fresh addresses).
    /// `192.0.2.1`, `2001:db8:1:2:0:0:0:0/64`.
    public var rateLimitKey: String {
        if isIPv4 { return description }
        return Self.text(bytes, groups: 4, suffix: ":0:0:0:0/64")
    }

    /// Writes `bytes` as a dotted quad (4 bytes), or the first `groups` of its 16-bit groups in lowercase hex
    /// without leading zeros, `:`-separated and followed by `suffix` (16 bytes). Digits are written straight
    /// into the string: this runs for every rate-limited or counted request (the client's key).
    private static func text(_ bytes: [UInt8], groups: Int, suffix: StaticString) -> String {
        String(unsafeUninitializedCapacity: 64) { output in
            var count = 0
            func put(_ byte: UInt8) {
                output[count] = byte
                count += 1
            }
            if bytes.count == 4 {
                for (index, byte) in bytes.enumerated() {
                    if index > 0 { put(UInt8(ascii: ".")) }
                    if byte >= 100 { put(UInt8(ascii: "0") + byte / 100) }
                    if byte >= 10 { put(UInt8(ascii: "0") + byte / 10 % 10) }
                    put(UInt8(ascii: "0") + byte % 10)
                }
                return count
            }
            for group in 0..<groups {
                if group > 0 { put(UInt8(ascii: ":")) }
                let value = UInt16(bytes[2 * group]) << 8 | UInt16(bytes[2 * group + 1])
                var shift: UInt16 = 12
                while shift > 0, value >> shift == 0 { shift -= 4 }
                while true {
                    let nibble = UInt8(truncatingIfNeeded: value >> shift) & 0x0f
                    put(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble)
                    if shift == 0 { break }
                    shift -= 4
                }
            }
            suffix.withUTF8Buffer { for byte in $0 { put(byte) } }
            return count
        }
    }

    private init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// `text` without leading and trailing spaces and tabs.
    static func trimmingBlanks(_ text: String) -> String {
        let utf8 = text.utf8
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = utf8.first, let last = utf8.last, isBlank(first) || isBlank(last) else { return text }
        guard let start = utf8.firstIndex(where: { !isBlank($0) }), let end = utf8.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return String(text[start...end])
    }

    private static func parse(_ text: String, family: Int32, size: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: size)
        let result = text.withCString { pointer in
            buffer.withUnsafeMutableBytes { inet_pton(family, pointer, $0.baseAddress) }
        }
        return result == 1 ? buffer : nil
    }
}
