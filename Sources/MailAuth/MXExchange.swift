/// One MX record's answer: the exchange host and its preference (RFC 5321 §5.1: lower is tried first).
public struct MXExchange: Sendable, Equatable {
    /// The preference; hosts of equal preference are equally good.
    public let preference: UInt16
    /// The exchange host as DNS gave it (the root, `""` or `"."`, for a null MX).
    public let host: String

    /// An exchange.
    public init(preference: UInt16, host: String) {
        self.preference = preference
        self.host = host
    }
}

extension MailAuthDNS {
    /// The MX exchanges at `name` with their preferences. A port that knows only the order (``mx(_:)``) gives each host
    /// a preference of its own, its rank, so that the order stays as it is.
    public func mxExchanges(_ name: String) async -> DNSLookup<[MXExchange]> {
        switch await mx(name) {
        case .found(let hosts):
            return .found(
                hosts.enumerated().map { MXExchange(preference: UInt16(clamping: $0.offset), host: $0.element) })
        case .noSuchName: return .noSuchName
        case .failed: return .failed
        }
    }
}
