import Logging
import MailDelivery

/// Opportunistic TLS's second chance for one destination domain, with chasquid's ratchet: a STARTTLS handshake that
/// fails is tried again in the clear on the same attempt (RFC 7435: plain text beats no delivery), unless TLS must
/// verify (MTA-STS `enforce`, `POSTERN_OUTBOUND_TLS=required`) or the domain took mail over TLS before
/// (``SecureDomainHistory``, shared by every instance). Such a domain's mail goes only over TLS (``requiresTLS()``): a
/// server that stops offering STARTTLS, answers it with a `4xx` (`454`) or breaks the handshake defers the mail, so an
/// attacker in the path cannot make a domain once seen secure receive in the clear; `postern mail tls-reset` forgets
/// the domain. Every delivery over TLS is noted.
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

    /// Whether the domain's mail must go over TLS although the policy would let it go in the clear: it took mail over
    /// TLS before. A history that cannot be read counts as "it did": no downgrade on doubt. False when the policy
    /// already forbids the clear (nothing to ratchet).
    func requiresTLS() async -> Bool {
        guard permitted else { return false }
        do {
            return try await history.wasDeliveredOverTLS(domain)
        } catch {
            logger.error(
                "the TLS history of a domain could not be read: its mail goes over TLS or waits",
                metadata: ["domain": "\(domain)", "error": "\(error)"])
            return true
        }
    }

    /// Whether a failed handshake may be retried in the clear: permitted, and the domain never took mail over TLS.
    func allowsPlaintext() async -> Bool {
        guard permitted else { return false }
        let seenSecure = await requiresTLS()
        if seenSecure {
            logger.notice(
                "STARTTLS failed with a domain that took mail over TLS before: not retried in the clear",
                metadata: ["domain": "\(domain)"])
        }
        return !seenSecure
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
