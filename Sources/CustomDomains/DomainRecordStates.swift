import JSON

/// What the last check of a claim found, record by record: the TXT token, the MX, SPF, DMARC and each DKIM key's record
/// (by its name). Kept with the claim (`custom_domain_claims.record_states`, migration 0045) so that the domain pages
/// show each row's last state after a reload, not only the page the check answered with. Nil members were not looked
/// up (a claim never checked has no states at all).
public struct DomainRecordStates: Sendable, Equatable {
    /// Whether the apex TXT held the claim's token.
    public var txt: Bool?
    /// Whether an MX named this server.
    public var mx: Bool?
    /// Whether one SPF policy was published at the apex (``SendingPolicyRecord/isPublished(in:)``).
    public var spf: Bool?
    /// Whether one DMARC policy was published at `_dmarc`.
    public var dmarc: Bool?
    /// Whether each DKIM key's record was published, by record name.
    public var dkim: [String: Bool]
    /// When the check ran, Unix seconds.
    public var checkedAt: Int64

    /// Memberwise.
    public init(
        txt: Bool? = nil, mx: Bool? = nil, spf: Bool? = nil, dmarc: Bool? = nil, dkim: [String: Bool] = [:],
        checkedAt: Int64
    ) {
        self.txt = txt
        self.mx = mx
        self.spf = spf
        self.dmarc = dmarc
        self.dkim = dkim
        self.checkedAt = checkedAt
    }

    /// The state of `policy`'s record.
    public func published(_ policy: SendingPolicyRecord.Kind) -> Bool? {
        switch policy {
        case .spf: spf
        case .dmarc: dmarc
        }
    }

    /// The stored form: a JSON object `{"txt","mx","spf","dmarc","dkim":{name: bool},"checked_at"}`.
    var json: String {
        func flag(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }
        let keys = dkim.keys.sorted().map { ($0, JSONValue.bool(dkim[$0] ?? false)) }
        let object = JSONValue.object([
            ("txt", flag(txt)), ("mx", flag(mx)), ("spf", flag(spf)), ("dmarc", flag(dmarc)),
            ("dkim", .object(keys)), ("checked_at", .int(checkedAt)),
        ])
        return String(decoding: object.serialize(), as: UTF8.self)
    }

    /// The states `text` (``json``) stores; nil when it is not such an object.
    init?(json text: String) {
        guard let object = try? JSONValue.parse(Array(text.utf8)), let checkedAt = object["checked_at"]?.intValue
        else { return nil }
        var dkim: [String: Bool] = [:]
        for (name, value) in object["dkim"]?.objectValue ?? [] { dkim[name] = value.boolValue }
        self.init(
            txt: object["txt"]?.boolValue, mx: object["mx"]?.boolValue, spf: object["spf"]?.boolValue,
            dmarc: object["dmarc"]?.boolValue, dkim: dkim, checkedAt: checkedAt)
    }
}
