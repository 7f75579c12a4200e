/// One answer record, as far as Postern reads it.
public enum DNSRecord: Sendable, Equatable {
    /// A TXT record: its character-strings joined (RFC 7208 section 3.3 joins them the same way).
    case txt(String)
    /// An MX record: preference and exchange host (lower-cased, without the trailing dot).
    case mx(preference: UInt16, exchange: String)
}
