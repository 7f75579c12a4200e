import Foundation

/// An IPv4 or IPv6 address held as plain bytes, parsed without the C library.
///
/// The IPv4 parser follows the WHATWG URL host rules, which are also what `inet_aton` accepts:
/// one to four parts separated by dots, each decimal, `0x` hexadecimal or `0`-prefixed octal, the
/// last part filling the remaining bytes. So `2130706433`, `0x7f000001`, `0177.0.0.1` and `127.1`
/// all mean `127.0.0.1`, and the address policy sees the same address the socket would reach.
///
/// Not `ClientAddress.IPAddress`, on purpose: that one parses the peer addresses a
/// socket or proxy reports (`inet_pton` spellings) to count clients for rate limits; this one parses
/// what a URL host may spell, for the outbound address policy. Keep them apart.
public enum RemoteAddress: Hashable, Sendable, CustomStringConvertible {
    /// An IPv4 address in host byte order (`127.0.0.1` is `0x7f00_0001`).
    case v4(UInt32)
    /// An IPv6 address as its 16 network-order bytes.
    case v6([UInt8])

    /// Parses an IPv4 address in any spelling a URL host may use, or an IPv6 address
    /// (without brackets, optionally with an embedded dotted IPv4 tail); nil when `text` is neither.
    public init?(literal text: String) {
        if text.contains(":") {
            guard let bytes = RemoteAddress.parseIPv6(text) else { return nil }
            self = .v6(bytes)
        } else {
            guard case .address(let value) = RemoteAddress.parseIPv4(text) else { return nil }
            self = .v4(value)
        }
    }

    /// The conventional text form: dotted quad, or RFC 5952 compressed IPv6.
    public var description: String {
        switch self {
        case .v4(let value):
            return RemoteAddress.dotted(value)
        case .v6(let bytes):
            return RemoteAddress.formatIPv6(bytes)
        }
    }

    /// The IPv4 address embedded in an IPv4-mapped (`::ffff:0:0/96`), IPv4-compatible (`::/96`),
    /// NAT64 (`64:ff9b::/96`) or 6to4 (`2002::/16`) IPv6 address; nil for every other address.
    public var embeddedIPv4: UInt32? {
        guard case .v6(let b) = self else { return nil }
        func tail(_ at: Int) -> UInt32 {
            UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
        }
        let firstTen = b[0..<10].allSatisfy { $0 == 0 }
        if firstTen && b[10] == 0xff && b[11] == 0xff { return tail(12) }
        if firstTen && b[10] == 0 && b[11] == 0 {
            let v4 = tail(12)
            // `::` and `::1` are IPv6's own unspecified and loopback addresses, not embedded IPv4.
            return v4 <= 1 ? nil : v4
        }
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4..<12].allSatisfy({ $0 == 0 }) {
            return tail(12)
        }
        if b[0] == 0x20 && b[1] == 0x02 { return tail(2) }
        return nil
    }

    // MARK: - IPv4

    /// Outcome of the WHATWG IPv4 parser: not numeric at all (a domain name), numeric but invalid,
    /// or an address.
    public enum IPv4ParseResult: Equatable, Sendable {
        /// Not numeric: a domain name.
        case notIPv4
        /// Numeric but not a valid address.
        case invalid
        /// The address, host order.
        case address(UInt32)
    }

    /// Whether `host` "ends in a number" (WHATWG): then it must parse as IPv4 or the URL is invalid.
    public static func parseIPv4(_ host: String) -> IPv4ParseResult {
        var parts = host.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if parts.count > 1 && parts.last == "" { parts.removeLast() }
        guard let last = parts.last, !last.isEmpty else { return .notIPv4 }
        // Only a host whose last label is numeric is an IPv4 candidate; "example.com" is a name.
        guard parseIPv4Number(last) != nil || last.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return .notIPv4
        }
        guard parts.count <= 4 else { return .invalid }
        var numbers: [UInt64] = []
        for part in parts {
            guard let n = parseIPv4Number(part) else { return .invalid }
            numbers.append(n)
        }
        for n in numbers.dropLast() where n > 255 { return .invalid }
        let lastLimit = UInt64(1) << (8 * UInt64(5 - numbers.count))
        guard numbers[numbers.count - 1] < lastLimit else { return .invalid }
        var value = numbers[numbers.count - 1]
        for (index, n) in numbers.dropLast().enumerated() {
            value += n << (8 * UInt64(3 - index))
        }
        return .address(UInt32(value))
    }

    /// One part: decimal, `0x`/`0X` hexadecimal (possibly empty digits meaning 0) or `0`-prefixed octal.
    private static func parseIPv4Number(_ text: String) -> UInt64? {
        guard !text.isEmpty else { return nil }
        var digits = Substring(text)
        var radix: UInt64 = 10
        if digits.count >= 2 && (digits.hasPrefix("0x") || digits.hasPrefix("0X")) {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.count >= 2 && digits.hasPrefix("0") {
            digits = digits.dropFirst()
            radix = 8
        }
        if digits.isEmpty { return 0 }
        var value: UInt64 = 0
        for ch in digits {
            guard let d = ch.hexDigitValue, UInt64(d) < radix else { return nil }
            value = value * radix + UInt64(d)
            if value > UInt64(UInt32.max) * 256 { return nil }  // far past any valid part
        }
        return value
    }

    static func dotted(_ value: UInt32) -> String {
        "\(value >> 24).\((value >> 16) & 0xff).\((value >> 8) & 0xff).\(value & 0xff)"
    }

    // MARK: - IPv6

    /// Parses RFC 4291 text: eight groups, one `::`, an optional dotted-quad tail. No zone ids.
    public static func parseIPv6(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.count <= 45, !text.contains("%") else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String, allowV4Tail: Bool) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1 && allowV4Tail && piece.contains(".") {
                    let quads = piece.split(separator: ".", omittingEmptySubsequences: false)
                    guard quads.count == 4 else { return nil }
                    var bytes: [UInt16] = []
                    for q in quads {
                        guard !q.isEmpty, q.count <= 3, q.allSatisfy({ $0.isASCII && $0.isNumber }),
                            let v = UInt16(q), v <= 255, !(q.count > 1 && q.hasPrefix("0"))
                        else { return nil }
                        bytes.append(v)
                    }
                    result.append(bytes[0] << 8 | bytes[1])
                    result.append(bytes[2] << 8 | bytes[3])
                } else {
                    // UInt16(_:radix:) alone would also take a sign ("+1", "-0").
                    guard (1...4).contains(piece.count), piece.allSatisfy({ $0.isASCII && $0.isHexDigit }),
                        let v = UInt16(piece, radix: 16)
                    else { return nil }
                    result.append(v)
                }
            }
            return result
        }
        let all: [UInt16]
        if halves.count == 2 {
            guard let head = groups(halves[0], allowV4Tail: false),
                let tail = groups(halves[1], allowV4Tail: true),
                head.count + tail.count <= 7
            else { return nil }
            all = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard let g = groups(halves[0], allowV4Tail: true), g.count == 8 else { return nil }
            all = g
        }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
    }

    static func formatIPv6(_ bytes: [UInt8]) -> String {
        let groups = (0..<8).map { (group: Int) -> UInt16 in
            UInt16(bytes[2 * group]) << 8 | UInt16(bytes[2 * group + 1])
        }
        // Longest run of two or more zero groups becomes "::" (RFC 5952 4.2).
        var bestStart = -1
        var bestLength = 1
        var index = 0
        while index < 8 {
            if groups[index] == 0 {
                var end = index
                while end < 8 && groups[end] == 0 { end += 1 }
                if end - index > bestLength {
                    bestStart = index
                    bestLength = end - index
                }
                index = end
            } else {
                index += 1
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        if bestStart < 0 { return hex.joined(separator: ":") }
        let head = hex[0..<bestStart].joined(separator: ":")
        let tail = hex[(bestStart + bestLength)...].joined(separator: ":")
        return head + "::" + tail
    }
}

/// A host to reach, as it was written: a DNS name to resolve, or a literal address.
public enum RemoteHost: Sendable, Equatable {
    /// A DNS name, lowercased, without a trailing dot.
    case name(String)
    /// An IPv4 literal (any spelling) or an IPv6 literal.
    case address(RemoteAddress)
}
