/// One check of a custom domain, the mechanism both Mail.td Pro domains and Atomic custom domains use: ownership by
/// a TXT record at the apex that holds the token, mail routing by an MX at the apex that names the server's MX host.
public struct DomainOwnershipCheck: Sendable, Equatable {
    /// Whether a TXT record at the domain holds the token exactly.
    public let txtFound: Bool
    /// Whether an MX record at the domain names the MX host.
    public let mxFound: Bool
    /// What a person should do next, or why the answer is not known yet; nil when both were found.
    public let message: String?

    public init(txtFound: Bool, mxFound: Bool, message: String?) {
        self.txtFound = txtFound
        self.mxFound = mxFound
        self.message = message
    }

    /// Looks both records up. A lookup that gets no answer (timeout, SERVFAIL, resolver unreachable) counts as not
    /// found and says so in `message`: the domain stays pending and the check can be run again.
    public static func run(
        domain: String, token: String, mxHost: String, resolver: DNSResolver
    ) async -> DomainOwnershipCheck {
        async let txt = lookup(domain, .txt, resolver)
        async let mx = lookup(domain, .mx, resolver)
        let (txtAnswer, mxAnswer) = await (txt, mx)
        let wantedHost = normalized(mxHost)
        let txtFound = txtAnswer.records.contains(.txt(token))
        let mxFound = mxAnswer.records.contains { record in
            if case .mx(_, let exchange) = record { return normalized(exchange) == wantedHost }
            return false
        }
        var problems: [String] = []
        if let failure = txtAnswer.failure {
            problems.append("TXT lookup failed (\(failure)); try again")
        } else if !txtFound {
            problems.append("TXT record not found")
        }
        if let failure = mxAnswer.failure {
            problems.append("MX lookup failed (\(failure)); try again")
        } else if !mxFound {
            problems.append("MX record not found")
        }
        return DomainOwnershipCheck(
            txtFound: txtFound, mxFound: mxFound, message: problems.isEmpty ? nil : problems.joined(separator: "; "))
    }

    /// The records of one lookup, or why there is no answer.
    public struct Lookup: Sendable {
        /// The answer's records; empty when the name has none of the type, or no answer came.
        public var records: [DNSRecord] = []
        /// Why no answer came (a person reads it: "SERVFAIL", "no answer in time"); nil when one did.
        public var failure: String?
    }

    /// Looks `type` records of `domain` up; a lookup without an answer is no records and a reason, never an error.
    public static func lookup(_ domain: String, _ type: DNSRecordType, _ resolver: DNSResolver) async -> Lookup {
        do {
            switch try await resolver.query(domain, type) {
            case .records(let records): return Lookup(records: records)
            case .noSuchName: return Lookup()
            case .failed(let code): return Lookup(failure: code == 2 ? "SERVFAIL" : "response code \(code)")
            }
        } catch DNSError.timeout {
            return Lookup(failure: "no answer in time")
        } catch DNSError.invalidName {
            return Lookup(failure: "the name cannot be looked up")
        } catch DNSError.overloaded {
            return Lookup(failure: "too many lookups at once; try again")
        } catch {
            return Lookup(failure: "resolver unreachable")
        }
    }

    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}
