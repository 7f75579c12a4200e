/// One lookup of a ``SigningKeyRecord``: whether its name holds the key now. Reported beside a domain's verification,
/// never a condition of it: ownership rests on the claim's TXT token alone.
public struct SigningKeyRecordCheck: Sendable, Equatable {
    /// The record looked up.
    public let record: SigningKeyRecord
    /// Whether a TXT record at its name publishes the key (``SigningKeyRecord/isPublished(as:)``).
    public let published: Bool
    /// Why the lookup got no answer (timeout, SERVFAIL, resolver unreachable); nil when it got one, found or not.
    public let failure: String?

    public init(record: SigningKeyRecord, published: Bool, failure: String?) {
        self.record = record
        self.published = published
        self.failure = failure
    }
}
