/// A close frame's status code (RFC 6455 §7.4).
///
/// Codes a peer may put on the wire: 1000–1003, 1007–1014 and 3000–4999. 1004 is reserved, and 1005 ("no status"),
/// 1006 ("abnormal closure") and 1015 ("TLS handshake") only ever describe a closure to an application: a close frame
/// carrying one of them (or anything else outside those ranges) is a protocol error, and this server never sends one.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as sent.
    public let rawValue: UInt16

    /// The code `rawValue`, whatever it is (see ``isValidOnTheWire``).
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normal = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the server is going away (shutdown).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the peer broke the protocol (unmasked frame, reserved bits or opcode, bad fragmentation).
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a kind of data the endpoint does not take.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: no status was given. Never sent.
    public static let noStatus = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection ended without a close frame. Never sent.
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a text message (or close reason) that is not valid UTF-8.
    public static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    /// 1008: the peer broke a policy (a revoked token, a reader too slow for its send queue).
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message larger than the endpoint takes.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1011: the server met a condition it could not handle.
    public static let internalError = WebSocketCloseCode(rawValue: 1011)
    /// 1015: the TLS handshake failed. Never sent.
    public static let tlsHandshake = WebSocketCloseCode(rawValue: 1015)

    /// Whether a close frame may carry this code: 1000–1003, 1007–1014 or 3000–4999.
    public var isValidOnTheWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    public var description: String { String(rawValue) }
}
