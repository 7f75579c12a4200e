/// The four states of an IMAP session (RFC 9051 §3), by name.
public enum IMAPSessionStateName: Sendable, Hashable {
    case notAuthenticated, authenticated, selected, logout
}
