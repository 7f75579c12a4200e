/// One answer record, as far as Postern reads it.
public enum DNSRecord: Sendable, Equatable {
    /// A TXT record: its character-strings joined (RFC 7208 section 3.3 joins them the same way).
    case txt(String)
    /// An MX record: preference and exchange host (lower-cased, without the trailing dot).
    case mx(preference: UInt16, exchange: String)
    /// An A record's 4 address bytes.
    case a([UInt8])
    /// An AAAA record's 16 address bytes.
    case aaaa([UInt8])
}
