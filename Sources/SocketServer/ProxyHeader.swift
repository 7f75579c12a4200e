import ClientAddress

/// The PROXY protocol header (HAProxy's "PROXY protocol" specification, versions 1 and 2) that a TCP balancer such as
/// HAProxy (`send-proxy`, `send-proxy-v2`) writes before a connection's first byte, naming the client it accepted the
/// connection from. Parsed from the bytes received so far, so it can be fed one byte at a time.
public enum ProxyHeader: Equatable, Sendable {
    /// The header is not complete yet.
    case incomplete
    /// A complete header of `length` bytes naming `client`, or nil when it names no address the server can use
    /// (v1 `UNKNOWN`, v2 `LOCAL` such as the balancer's own health check, or a family other than TCP over IPv4/IPv6):
    /// the connection is then served as the socket's own peer.
    case complete(client: IPAddress?, length: Int)
    /// Not a PROXY header, or a malformed one: the connection is closed.
    case invalid

    /// The longest version 1 header, `\r\n` included.
    static let maxVersion1Length = 107
    /// The longest version 2 header this server takes: 16 fixed bytes and up to 512 of addresses and TLVs.
    static let maxVersion2Length = 16 + 512
    /// The longest header of either version: what a server buffers before deciding.
    public static let maxLength = maxVersion2Length
    private static let version2Signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
    private static let version1Prefix = Array("PROXY ".utf8)

    /// Parses the header at the start of `bytes`.
    public static func parse(_ bytes: some Collection<UInt8>) -> ProxyHeader {
        let bytes = Array(bytes.prefix(maxLength))
        guard let first = bytes.first else { return .incomplete }
        if first == version2Signature[0] { return parseVersion2(bytes) }
        if first == version1Prefix[0] { return parseVersion1(bytes) }
        return .invalid
    }

    private static func parseVersion1(_ bytes: [UInt8]) -> ProxyHeader {
        let prefixLength = min(bytes.count, version1Prefix.count)
        guard bytes[..<prefixLength].elementsEqual(version1Prefix[..<prefixLength]) else { return .invalid }
        guard let lineFeed = bytes.prefix(maxVersion1Length).firstIndex(of: 0x0A) else {
            return bytes.count < maxVersion1Length ? .incomplete : .invalid
        }
        guard lineFeed > 0, bytes[lineFeed - 1] == 0x0D,
            let line = String(validating: bytes[..<(lineFeed - 1)], as: Unicode.ASCII.self)
        else { return .invalid }
        let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let length = lineFeed + 1
        if fields.count >= 2, fields[1] == "UNKNOWN" { return .complete(client: nil, length: length) }
        guard fields.count == 6, fields[1] == "TCP4" || fields[1] == "TCP6",
            isAddress(fields[2]), isAddress(fields[3]), let source = IPAddress(fields[2]),
            IPAddress(fields[3]) != nil, isPort(fields[4]), isPort(fields[5])
        else { return .invalid }
        return .complete(client: source, length: length)
    }

    /// Bare address text: digits, hex letters, dots and colons (no brackets, port or zone, which `IPAddress` would
    /// also take).
    private static func isAddress(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte | 0x20) || byte == 0x2E || byte == 0x3A
        } && !(text.utf8.filter { $0 == 0x3A }.count == 1)
    }

    private static func isPort(_ text: String) -> Bool {
        guard !text.isEmpty, text.count <= 5, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            text == "0" || !text.hasPrefix("0"), let port = Int(text)
        else { return false }
        return port <= 65535
    }

    private static func parseVersion2(_ bytes: [UInt8]) -> ProxyHeader {
        let signatureLength = min(bytes.count, version2Signature.count)
        guard bytes[..<signatureLength].elementsEqual(version2Signature[..<signatureLength]) else { return .invalid }
        guard bytes.count >= 16 else { return .incomplete }
        let versionAndCommand = bytes[12]
        guard versionAndCommand >> 4 == 2, versionAndCommand & 0x0F <= 1 else { return .invalid }
        let addressLength = Int(bytes[14]) << 8 | Int(bytes[15])
        let length = 16 + addressLength
        guard length <= maxVersion2Length else { return .invalid }
        guard bytes.count >= length else { return .incomplete }
        guard versionAndCommand & 0x0F == 1 else { return .complete(client: nil, length: length) }  // LOCAL
        switch bytes[13] {
        case 0x11:  // TCP over IPv4: source, destination, two ports
            guard addressLength >= 12 else { return .invalid }
            return .complete(client: IPAddress(bytes: Array(bytes[16..<20])), length: length)
        case 0x21:  // TCP over IPv6
            guard addressLength >= 36 else { return .invalid }
            return .complete(client: IPAddress(bytes: Array(bytes[16..<32])), length: length)
        default:  // UNSPEC, UDP, unix sockets: nothing to serve the connection as
            return .complete(client: nil, length: length)
        }
    }
}
