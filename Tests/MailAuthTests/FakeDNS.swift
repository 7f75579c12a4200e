import MailAuth

/// A DNS table for the checks: TXT, MX and address answers by name; names not listed do not exist; names in
/// `failing` time out.
struct FakeDNS: MailAuthDNS {
    var txtRecords: [String: [String]] = [:]
    var mxRecords: [String: [String]] = [:]
    var addressRecords: [String: [[UInt8]]] = [:]
    var failing: Set<String> = []

    func txt(_ name: String) async -> DNSLookup<[String]> { answer(name, txtRecords) }
    func mx(_ name: String) async -> DNSLookup<[String]> { answer(name, mxRecords) }
    func addresses(_ name: String, ipv6: Bool) async -> DNSLookup<[[UInt8]]> {
        if failing.contains(name) { return .failed }
        guard let all = addressRecords[name] else { return .noSuchName }
        return .found(all.filter { $0.count == (ipv6 ? 16 : 4) })
    }

    private func answer<T>(_ name: String, _ table: [String: [T]]) -> DNSLookup<[T]> {
        if failing.contains(name) { return .failed }
        return table[name].map { .found($0) } ?? .noSuchName
    }
}
