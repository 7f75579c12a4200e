/// Which destination domains have taken mail over TLS before, shared by every instance (chasquid's `domaininfo`): a
/// transport never falls back to plain text for such a domain when its TLS handshake fails, so that an attacker who
/// breaks the handshake cannot downgrade a domain once seen secure. The outbound queue keeps it in the database;
/// `postern mail tls-reset DOMAIN` forgets a domain.
public protocol SecureDomainHistory: Sendable {
    /// Whether mail to `domain` (lowercased) was delivered over TLS before.
    /// - Throws: storage errors (a transport treats them as "yes": no downgrade on doubt).
    func wasDeliveredOverTLS(_ domain: String) async throws -> Bool
    /// Notes that mail to `domain` (lowercased) was delivered over TLS at `now` (Unix seconds).
    func recordDeliveryOverTLS(_ domain: String, now: Int64) async throws
}
