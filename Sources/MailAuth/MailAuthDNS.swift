import DNS

/// What the checks ask DNS, as a port so that tests answer from a table.
public protocol MailAuthDNS: Sendable {
    /// The TXT strings at `name`.
    func txt(_ name: String) async -> DNSLookup<[String]>
    /// The MX exchanges at `name`, most preferred first.
    func mx(_ name: String) async -> DNSLookup<[String]>
    /// The MX exchanges at `name` with their preferences (outbound delivery shuffles hosts of equal preference). A
    /// default derives them from ``mx(_:)``'s order.
    func mxExchanges(_ name: String) async -> DNSLookup<[MXExchange]>
    /// The IPv4 (4 bytes each) or IPv6 (16 bytes each) addresses of `name`.
    func addresses(_ name: String, ipv6: Bool) async -> DNSLookup<[[UInt8]]>
}

/// One lookup's answer: records (possibly none), the name does not exist, or no answer could be had.
public enum DNSLookup<Value: Sendable & Equatable>: Sendable, Equatable {
    case found(Value)
    /// NXDOMAIN.
    case noSuchName
    /// Timeout, SERVFAIL, an unreachable resolver: a temporary error, never a negative answer.
    case failed
}

/// ``MailAuthDNS`` over Postern's stub resolver.
public struct ResolverMailAuthDNS: MailAuthDNS {
    let resolver: DNSResolver

    /// Asks `resolver`.
    public init(resolver: DNSResolver) {
        self.resolver = resolver
    }

    public func txt(_ name: String) async -> DNSLookup<[String]> {
        await lookup(name, .txt) { record in
            if case .txt(let text) = record { return text }
            return nil
        }
    }

    public func mx(_ name: String) async -> DNSLookup<[String]> {
        switch await mxExchanges(name) {
        case .found(let exchanges): return .found(exchanges.map(\.host))
        case .noSuchName: return .noSuchName
        case .failed: return .failed
        }
    }

    /// The MX exchanges by preference, then by name.
    public func mxExchanges(_ name: String) async -> DNSLookup<[MXExchange]> {
        let answer = await lookup(name, .mx) { record -> MXExchange? in
            guard case .mx(let preference, let exchange) = record else { return nil }
            return MXExchange(preference: preference, host: exchange)
        }
        switch answer {
        case .found(let records):
            return .found(records.sorted { ($0.preference, $0.host) < ($1.preference, $1.host) })
        case .noSuchName: return .noSuchName
        case .failed: return .failed
        }
    }

    public func addresses(_ name: String, ipv6: Bool) async -> DNSLookup<[[UInt8]]> {
        await lookup(name, ipv6 ? .aaaa : .a) { record in
            switch record {
            case .a(let bytes) where !ipv6: return bytes
            case .aaaa(let bytes) where ipv6: return bytes
            default: return nil
            }
        }
    }

    private func lookup<T: Sendable>(_ name: String, _ type: DNSRecordType, _ pick: (DNSRecord) -> T?) async
        -> DNSLookup<[T]> where [T]: Equatable
    {
        do {
            switch try await resolver.query(name, type) {
            case .records(let records): return .found(records.compactMap(pick))
            case .noSuchName: return .noSuchName
            case .failed: return .failed
            }
        } catch {
            return .failed
        }
    }
}
