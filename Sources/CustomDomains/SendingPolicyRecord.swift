/// A DNS TXT record besides the DKIM keys that mail from a custom domain needs to be believed (docs/outbound.md, "The
/// DNS records to publish"): SPF at the apex naming who may send for the domain (RFC 7208), and DMARC at `_dmarc`
/// saying what receivers do with mail that fails alignment (RFC 7489). Shown beside the domain's other records and
/// looked up with them, never a condition of verification: ownership rests on the claim's TXT token alone.
public struct SendingPolicyRecord: Sendable, Equatable {
    /// Which policy.
    public enum Kind: String, Sendable, CaseIterable {
        /// `v=spf1 mx -all` at the apex: the domain's MX hosts (this server) may send for it, nobody else.
        case spf
        /// `v=DMARC1; p=quarantine; rua=mailto:postmaster@<domain>` at `_dmarc.<domain>`.
        case dmarc
    }

    /// Which policy.
    public let kind: Kind
    /// The record's name: the domain for SPF, `_dmarc.<domain>` for DMARC.
    public let name: String
    /// The value to publish.
    public let value: String

    /// The record of `kind` for `domain` (lower-cased, no trailing dot).
    public init(_ kind: Kind, domain: String) {
        self.kind = kind
        switch kind {
        case .spf:
            name = domain
            value = "v=spf1 mx -all"
        case .dmarc:
            name = "_dmarc." + domain
            value = "v=DMARC1; p=quarantine; rua=mailto:postmaster@" + domain
        }
    }

    /// Both records of `domain`, SPF first.
    public static func all(for domain: String) -> [SendingPolicyRecord] {
        Kind.allCases.map { SendingPolicyRecord($0, domain: domain) }
    }

    /// Whether `texts`, the TXT records found at ``name`` (each one's strings joined), publish a policy of this kind:
    /// exactly one record starts with its version tag (`v=spf1` as a whole word, `v=DMARC1`, in any case), as RFC
    /// 7208 section 4.5 and RFC 7489 section 6.6.3 ask (two SPF records are a permanent error). The policy's terms are
    /// the domain owner's to choose (a relay's `include:`, `p=none` to start): any policy of the kind is found.
    public func isPublished(in texts: [String]) -> Bool {
        texts.filter { text in
            let lowered = text.drop(while: \.isWhitespace).lowercased()
            switch kind {
            case .spf: return lowered == "v=spf1" || lowered.hasPrefix("v=spf1 ")
            case .dmarc:
                return lowered.hasPrefix("v=dmarc1")
                    && lowered.dropFirst("v=dmarc1".count).first.map { $0 == ";" || $0.isWhitespace } ?? true
            }
        }.count == 1
    }
}
