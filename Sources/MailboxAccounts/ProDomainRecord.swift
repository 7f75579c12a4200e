import CustomDomains
import JSON

/// One DNS record a Pro user's custom domain asks them to publish, as `POST /api/user/domains` and its verify show it:
/// the TXT token and the MX at the apex, then one `_domainkey` TXT per DKIM key (RSA first).
public struct ProDomainRecord: Sendable, Equatable {
    /// `TXT` or `MX`.
    public let type: String
    /// The record's full name: the apex, or `<selector>._domainkey.<domain>`.
    public let host: String
    /// What it must hold: the verify token, this server's MX host, or a DKIM key record.
    public let value: String
    /// The MX preference (10); nil for a TXT record.
    public let priority: Int64?
    /// Whether the lookup that came with this answer found it; nil when none was run.
    public let ok: Bool?

    /// The DNSRecord object of the Mail.td API: `type`, `host`, `value`, then `priority` and `ok` when known.
    package var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("type", .string(type)), ("host", .string(host)), ("value", .string(value)),
        ]
        if let priority { members.append(("priority", .int(priority))) }
        if let ok { members.append(("ok", .bool(ok))) }
        return .object(members)
    }
}

/// A Pro user's custom domain: its claim and the records to publish (no lookup made).
public struct ProDomain: Sendable, Equatable {
    /// The claim: id, domain, verify token, state.
    public let claim: DomainClaim
    /// The records to publish, in the API's order.
    public let records: [ProDomainRecord]
    /// The SPF and DMARC records sending from the domain needs (docs/outbound.md), with the last check's `ok`: shown
    /// by the dashboard beside ``records``, not part of the Mail.td API's `dns_records`.
    public var policies: [ProDomainRecord] = []
}

/// What one verification found: the claim as it stands after it, and each record looked up with its `ok`.
public struct ProDomainVerification: Sendable, Equatable {
    /// The claim after the check (verified once its TXT token was found).
    public let claim: DomainClaim
    /// Whether the TXT token was found at the apex.
    public let txtFound: Bool
    /// Whether an MX at the apex names this server.
    public let mxFound: Bool
    /// Every record, each with `ok`.
    public let records: [ProDomainRecord]
    /// What to do next, or why a lookup got no answer; nil when the TXT and MX were found.
    public let message: String?
    /// The SPF and DMARC records, each with what this check found (``ProDomain/policies``).
    public var policies: [ProDomainRecord] = []
}
