import MailAuth

/// One DKIM key of a domain as `dkim_keys` holds it: its selector, algorithm, times, and the opened private key.
public struct DKIMKey: Sendable {
    /// The signing domain, lower-case.
    public let domain: String
    /// The private key and its selector, ready to sign.
    public let signingKey: DKIMSigningKey
    /// When it was made (Unix seconds).
    public let createdAt: Int64
    /// When a rotation replaced it (Unix seconds); nil while it signs.
    public let retiredAt: Int64?

    /// The selector (`s=`).
    public var selector: String { signingKey.selector }
    /// The algorithm (`a=`).
    public var algorithm: DKIMSigningKey.Algorithm { signingKey.algorithm }
    /// The DNS TXT record's name: `<selector>._domainkey.<domain>`.
    public var txtRecordName: String { signingKey.txtRecordName(domain: domain) }
    /// The DNS TXT record's value: `v=DKIM1; k=rsa; p=...` or `v=DKIM1; k=ed25519; p=...`.
    public var txtRecordValue: String { signingKey.txtRecordValue }
}
