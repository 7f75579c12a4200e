import MailAuth

/// DNS answers from tables: TXT, MX (most preferred first, as ``ResolverMailAuthDNS`` returns them) and addresses
/// by name; names in `failing` give no answer; names not listed do not exist.
struct TableDNS: MailAuthDNS {
    var txtRecords: [String: [String]] = [:]
    var mxRecords: [String: [String]] = [:]
    /// MX records with their preferences (answers ``mxExchanges(_:)`` before ``mxRecords``).
    var mxPreferences: [String: [MXExchange]] = [:]
    var addressRecords: [String: [[UInt8]]] = [:]
    var failing: Set<String> = []
    /// Names whose address lookups (only) give no answer.
    var failingAddresses: Set<String> = []

    func txt(_ name: String) async -> DNSLookup<[String]> { answer(name, txtRecords) }
    func mx(_ name: String) async -> DNSLookup<[String]> { answer(name, mxRecords) }
    func mxExchanges(_ name: String) async -> DNSLookup<[MXExchange]> {
        if mxPreferences[name] != nil { return answer(name, mxPreferences) }
        switch answer(name, mxRecords) {
        case .found(let hosts):
            return .found(hosts.enumerated().map { MXExchange(preference: UInt16($0.offset), host: $0.element) })
        case .noSuchName: return .noSuchName
        case .failed: return .failed
        }
    }
    func addresses(_ name: String, ipv6: Bool) async -> DNSLookup<[[UInt8]]> {
        if failing.contains(name) || failingAddresses.contains(name) { return .failed }
        guard let all = addressRecords[name] else { return .noSuchName }
        return .found(all.filter { $0.count == (ipv6 ? 16 : 4) })
    }

    private func answer<T>(_ name: String, _ table: [String: [T]]) -> DNSLookup<[T]> {
        if failing.contains(name) { return .failed }
        return table[name].map { .found($0) } ?? .noSuchName
    }
}
