/// DMARC (RFC 7489): the `From` domain's policy at `_dmarc.<domain>` (or at its organizational domain), and whether
/// a passing SPF or DKIM result is aligned with it (`adkim`/`aspf`, relaxed by default). The organizational domain
/// is taken as the last two labels: there is no public suffix list here, so `a.example.co.uk` finds
/// `_dmarc.co.uk` rather than `_dmarc.example.co.uk` (a stated simplification).
public struct DMARCEvaluator: Sendable {
    /// The verdict, the policy that applies, and the `From` domain.
    public struct Outcome: Sendable, Equatable {
        public var result: AuthResult
        /// `none`, `quarantine` or `reject`; nil without a record.
        public var policy: String?
        public var fromDomain: String
    }

    let dns: any MailAuthDNS

    /// Evaluates with `dns`.
    public init(dns: any MailAuthDNS) {
        self.dns = dns
    }

    /// DMARC for `fromDomain` given the SPF outcome and the domains of the DKIM signatures that passed.
    public func check(fromDomain: String?, spf: SPFEvaluator.Outcome, dkimPassedDomains: [String]) async -> Outcome {
        guard let from = fromDomain?.lowercased(), from.contains(".") else {
            return Outcome(result: .none, policy: nil, fromDomain: fromDomain ?? "")
        }
        let organizational = Self.organizational(from)
        var record: DKIMTagList?
        var isSubdomainLookup = false
        for (name, subdomain) in [(from, false), (organizational, true)] where !(subdomain && name == from) {
            switch await dns.txt("_dmarc." + name) {
            case .found(let texts):
                let dmarc = texts.filter { $0.hasPrefix("v=DMARC1") }
                if dmarc.count > 1 { return Outcome(result: .permerror, policy: nil, fromDomain: from) }
                if let text = dmarc.first {
                    guard let tags = DKIMTagList(text) else {
                        return Outcome(result: .permerror, policy: nil, fromDomain: from)
                    }
                    record = tags
                    isSubdomainLookup = subdomain
                }
            case .noSuchName: break
            case .failed: return Outcome(result: .temperror, policy: nil, fromDomain: from)
            }
            if record != nil { break }
        }
        guard let record, let p = record["p"]?.lowercased(), ["none", "quarantine", "reject"].contains(p) else {
            return Outcome(result: record == nil ? .none : .permerror, policy: nil, fromDomain: from)
        }
        let policy = isSubdomainLookup ? (record["sp"]?.lowercased() ?? p) : p
        let strictDKIM = record["adkim"]?.lowercased() == "s"
        let strictSPF = record["aspf"]?.lowercased() == "s"
        let dkimAligned = dkimPassedDomains.contains { Self.aligned($0, from, strict: strictDKIM) }
        let spfAligned = spf.result == .pass && Self.aligned(spf.domain, from, strict: strictSPF)
        return Outcome(result: dkimAligned || spfAligned ? .pass : .fail, policy: policy, fromDomain: from)
    }

    /// The last two labels of `domain`.
    static func organizational(_ domain: String) -> String {
        domain.split(separator: ".").suffix(2).joined(separator: ".")
    }

    /// Strict: the same domain; relaxed: the same organizational domain.
    static func aligned(_ one: String, _ other: String, strict: Bool) -> Bool {
        strict ? one.lowercased() == other.lowercased() : organizational(one.lowercased()) == organizational(other)
    }
}
