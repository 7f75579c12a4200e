import MailDelivery
import Storage

/// The domains that took mail over TLS (`outbound_tls_domains`, migration 0043), shared by every instance over the
/// database: the transport asks before it retries a failed STARTTLS handshake in the clear, and notes every delivery
/// over TLS.
extension OutboundQueue: SecureDomainHistory {
    public func wasDeliveredOverTLS(_ domain: String) async throws -> Bool {
        try await database.read { connection in
            try !connection.query(
                "SELECT 1 AS seen FROM outbound_tls_domains WHERE domain = ?", [.text(domain.lowercased())]
            ).isEmpty
        }
    }

    public func recordDeliveryOverTLS(_ domain: String, now: Int64) async throws {
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO outbound_tls_domains (domain, first_seen_at, last_seen_at) VALUES (?, ?, ?)
                ON CONFLICT (domain) DO UPDATE SET last_seen_at = excluded.last_seen_at
                """, [.text(domain.lowercased()), .integer(now), .integer(now)])
        }
    }

    /// Forgets that `domain` took mail over TLS (`postern mail tls-reset`): its next failed STARTTLS handshake may be
    /// retried in the clear again. Returns whether it was known.
    @discardableResult
    public func forgetDeliveryOverTLS(_ domain: String) async throws -> Bool {
        try await database.write { connection in
            try connection.run("DELETE FROM outbound_tls_domains WHERE domain = ?", [.text(domain.lowercased())]) > 0
        }
    }
}
