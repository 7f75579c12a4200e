/// Why a lookup has no answer. None of them says the name lacks the records: callers treat them as "try again".
public enum DNSError: Error, Sendable, Equatable {
    /// The name cannot be asked (empty label, label over 63 bytes, name over 253, a byte outside letters, digits,
    /// `-` and `_`).
    case invalidName
    /// No response within the resolver's timeout.
    case timeout
    /// The server could not be reached (the `errno` of the socket call).
    case unreachable(Int32)
    /// The response does not parse, or answers another question.
    case malformedResponse
    /// Every lookup thread is busy and enough lookups wait already: none was sent.
    case overloaded
}
