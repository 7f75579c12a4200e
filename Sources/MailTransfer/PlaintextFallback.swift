import Logging
import MailDelivery

/// Opportunistic TLS's second chance for one destination domain, with chasquid's ratchet: a STARTTLS handshake that
/// fails is tried again in the clear on the same attempt (RFC 7435: plain text beats no delivery), unless TLS must
/// verify (MTA-STS `enforce`, `POSTERN_OUTBOUND_TLS=required`) or the domain took mail over TLS before
/// (``SecureDomainHistory``, shared by every instance): an attacker who breaks the handshake cannot make a domain once
/// seen secure receive in the clear. Every delivery over TLS is noted.
struct PlaintextFallback: Sendable {
    /// The destination domain, lowercased.
    let domain: String
    /// Whether the policy lets the domain's mail go in the clear at all (opportunistic TLS, no MTA-STS `enforce`).
    let permitted: Bool
    /// Which domains took mail over TLS.
    let history: any SecureDomainHistory
    /// Unix seconds.
    let now: @Sendable () -> Int64
    let logger: Logger

    /// Whether a failed handshake may be retried in the clear: permitted, and the domain never took mail over TLS. A
    /// history that cannot be read counts as "it did": no downgrade on doubt.
    func allowsPlaintext() async -> Bool {
        guard permitted else { return false }
        do {
            let seenSecure = try await history.wasDeliveredOverTLS(domain)
            if seenSecure {
                logger.notice(
                    "STARTTLS failed with a domain that took mail over TLS before: not retried in the clear",
                    metadata: ["domain": "\(domain)"])
            }
            return !seenSecure
        } catch {
            logger.error(
                "the TLS history of a domain could not be read: not retried in the clear",
                metadata: ["domain": "\(domain)", "error": "\(error)"])
            return false
        }
    }

    /// Notes that the domain took mail over TLS (a failure to note it is logged: the next delivery notes it again).
    func deliveredOverTLS() async {
        do {
            try await history.recordDeliveryOverTLS(domain, now: now())
        } catch {
            logger.error(
                "a delivery over TLS could not be noted", metadata: ["domain": "\(domain)", "error": "\(error)"])
        }
    }
}
