/// The base64 text of one SASL message, as IMAP (RFC 9051 §6.2.2, RFC 4959) and POP3 (RFC 5034) carry it: checked to
/// be base64 (`=` alone is the empty message), decoded by whoever runs the mechanism (the one Base64 is AuthCrypto's).
public struct SASLMessage: Sendable, Equatable {
    /// The base64 text, `""` for the empty message.
    public let base64: String

    /// The message of one line, or nil when it is not base64 (`=` is the empty message).
    public init?(line: some Collection<UInt8>) {
        if line.count == 1 && line.first == UInt8(ascii: "=") {
            base64 = ""
            return
        }
        guard !line.isEmpty, line.count % 4 == 0 else { return nil }
        let padding = line.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2, line.dropLast(padding).allSatisfy(Self.isBase64Character) else { return nil }
        base64 = String(decoding: line, as: UTF8.self)
    }

    /// An encoded message for a challenge, as the mechanism made it.
    public init(base64: String) {
        self.base64 = base64
    }

    private static func isBase64Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            return true
        default: return false
        }
    }
}
