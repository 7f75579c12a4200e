/// What a server said about one question.
public enum DNSAnswer: Sendable, Equatable {
    /// The records of the asked type (possibly none: the name exists without them).
    case records([DNSRecord])
    /// NXDOMAIN: the name does not exist.
    case noSuchName
    /// Any other response code (SERVFAIL, REFUSED...): the answer is unknown, not negative.
    case failed(responseCode: UInt8)
}
