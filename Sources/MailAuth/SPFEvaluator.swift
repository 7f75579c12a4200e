import ClientAddress

/// SPF (RFC 7208), the subset real records use: `all`, `include`, `a`, `mx`, `ip4`, `ip6` with CIDR lengths, the
/// `redirect` modifier, qualifiers, and the limit of 10 DNS-querying terms (past it: permerror). `ptr` never
/// matches (RFC 7208 says not to use it); `exists` and macros (`%{...}`) are not supported and give permerror.
public struct SPFEvaluator: Sendable {
    /// The verdict and the domain it is about.
    public struct Outcome: Sendable, Equatable {
        public var result: AuthResult
        /// The domain checked: the MAIL FROM domain, or the HELO name for the null sender.
        public var domain: String
    }

    let dns: any MailAuthDNS
    /// DNS-querying terms one check may use (RFC 7208 section 4.6.4).
    static let lookupLimit = 10

    /// Evaluates with `dns`.
    public init(dns: any MailAuthDNS) {
        self.dns = dns
    }

    /// `check_host` for the client `clientIP`, sender `mailFrom` (empty for `<>`) and HELO name `helo`.
    public func check(clientIP: String, mailFrom: String, helo: String) async -> Outcome {
        let domain = Self.domain(of: mailFrom) ?? helo.lowercased()
        guard let ip = IPAddress(literal: clientIP), !domain.isEmpty, domain.contains(".") else {
            return Outcome(result: .none, domain: domain)
        }
        var budget = Self.lookupLimit
        return Outcome(result: await checkHost(ip, domain, &budget, depth: 0), domain: domain)
    }

    /// The domain part of an address, lower-cased; nil without one.
    static func domain(of address: String) -> String? {
        guard let at = address.lastIndex(of: "@") else { return nil }
        let domain = address[address.index(after: at)...].lowercased()
        return domain.isEmpty ? nil : domain
    }

    private func checkHost(_ ip: IPAddress, _ domain: String, _ budget: inout Int, depth: Int) async -> AuthResult {
        guard depth < 10 else { return .permerror }
        let records: [String]
        switch await dns.txt(domain) {
        case .found(let texts): records = texts
        case .noSuchName: return .none
        case .failed: return .temperror
        }
        let spf = records.filter { $0.lowercased() == "v=spf1" || $0.lowercased().hasPrefix("v=spf1 ") }
        guard spf.count == 1 else { return spf.isEmpty ? .none : .permerror }
        var redirect: String?
        for term in spf[0].split(separator: " ").dropFirst().map(String.init) {
            if term.contains("%") { return .permerror }
            let lower = term.lowercased()
            if lower.hasPrefix("redirect=") {
                redirect = String(term.dropFirst("redirect=".count))
                continue
            }
            if lower.hasPrefix("exp=") || (lower.contains("=") && !lower.contains(":")) { continue }  // other modifiers
            var mechanism = Substring(lower)
            var qualifier = AuthResult.pass
            switch mechanism.first {
            case "+": mechanism = mechanism.dropFirst()
            case "-":
                qualifier = .fail
                mechanism = mechanism.dropFirst()
            case "~":
                qualifier = .softfail
                mechanism = mechanism.dropFirst()
            case "?":
                qualifier = .neutral
                mechanism = mechanism.dropFirst()
            default: break
            }
            switch await matches(String(mechanism), ip, domain, &budget, depth: depth) {
            case .match: return qualifier
            case .noMatch: continue
            case .error(let error): return error
            }
        }
        if let redirect {
            budget -= 1
            guard budget >= 0 else { return .permerror }
            let result = await checkHost(ip, redirect.lowercased(), &budget, depth: depth + 1)
            return result == .none ? .permerror : result
        }
        return .neutral
    }

    private enum Match {
        case match, noMatch
        case error(AuthResult)
    }

    private func matches(_ mechanism: String, _ ip: IPAddress, _ domain: String, _ budget: inout Int, depth: Int) async
        -> Match
    {
        let (name, argument, prefix4, prefix6) = Self.split(mechanism)
        switch name {
        case "all":
            return .match
        case "ip4", "ip6":
            guard let argument, let network = IPAddress(literal: argument), network.isIPv4 == (name == "ip4") else {
                return .error(.permerror)
            }
            let prefix = (name == "ip4" ? prefix4 : prefix4 ?? prefix6) ?? network.bytes.count * 8
            return IPNetwork(network, length: prefix)?.contains(ip) == true ? .match : .noMatch
        case "include":
            guard let argument else { return .error(.permerror) }
            budget -= 1
            guard budget >= 0 else { return .error(.permerror) }
            switch await checkHost(ip, argument, &budget, depth: depth + 1) {
            case .pass: return .match
            case .fail, .softfail, .neutral: return .noMatch
            case .temperror: return .error(.temperror)
            default: return .error(.permerror)
            }
        case "a", "mx":
            budget -= 1
            guard budget >= 0 else { return .error(.permerror) }
            let target = argument ?? domain
            var hosts = [target]
            if name == "mx" {
                switch await dns.mx(target) {
                case .found(let exchanges): hosts = Array(exchanges.prefix(10))
                case .noSuchName: hosts = []
                case .failed: return .error(.temperror)
                }
            }
            let prefix = ip.isIPv4 ? (prefix4 ?? 32) : (prefix6 ?? 128)
            for host in hosts {
                switch await dns.addresses(host, ipv6: !ip.isIPv4) {
                case .found(let addresses):
                    let blocks = addresses.lazy.compactMap { IPAddress(bytes: $0) }.compactMap {
                        IPNetwork($0, length: prefix)
                    }
                    if blocks.contains(where: { $0.contains(ip) }) { return .match }
                case .noSuchName: continue
                case .failed: return .error(.temperror)
                }
            }
            return .noMatch
        case "ptr":
            budget -= 1
            return budget >= 0 ? .noMatch : .error(.permerror)
        default:
            return .error(.permerror)  // exists and unknown mechanisms
        }
    }

    /// `name[:argument][/prefix4][//prefix6]`.
    private static func split(_ mechanism: String) -> (String, String?, Int?, Int?) {
        var rest = Substring(mechanism)
        var prefix6: Int?
        if let range = rest.range(of: "//") {
            prefix6 = Int(rest[range.upperBound...])
            rest = rest[..<range.lowerBound]
        }
        var prefix4: Int?
        let colon = rest.firstIndex(of: ":")
        if let slash = rest.lastIndex(of: "/"), colon.map({ slash > $0 }) ?? true {
            prefix4 = Int(rest[rest.index(after: slash)...])
            rest = rest[..<slash]
        }
        guard let colon = rest.firstIndex(of: ":") else { return (String(rest), nil, prefix4, prefix6) }
        return (String(rest[..<colon]), String(rest[rest.index(after: colon)...]), prefix4, prefix6)
    }
}
