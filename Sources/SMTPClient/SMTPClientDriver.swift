import ComputePool
import OutboundSocket
import SMTPOutcomes

/// What one session over the network came to.
public struct SMTPDeliveryReport: Sendable, Equatable {
    /// Every recipient of every message, per message in the order given.
    public let results: [[SMTPRecipientResult]]
    /// The address connected to, nil when no connection was made.
    public let address: String?
    /// Whether the session ran over TLS.
    public let usedTLS: Bool
    /// Whether the server's certificate verified for the host name (false without TLS).
    public let certificateVerified: Bool
    /// Whether the server said `220` to `STARTTLS` and the handshake then failed (or the certificate did not verify
    /// when it had to): the session ended there, and the transport may try the host again in the clear.
    public internal(set) var tlsHandshakeFailed = false
}

/// Runs an ``SMTPClientSession`` over a real connection: resolves and vets the host under the outbound address
/// policy (`POSTERN_OUTBOUND_ALLOW_PRIVATE`: loopback and private receivers are refused unless it is on), connects,
/// moves bytes both ways with the timeouts the machine asks for, and runs the TLS handshake when it says so.
///
/// Blocking I/O on a thread, as `Fetch`'s fetcher does it: an SMTP session is a short, strictly ordered exchange
/// that a thread drives from start to end, and the queue that uses it bounds how many run at once (its per-destination
/// concurrency) by the size of the ``WorkerPool`` it passes to ``deliver(_:host:port:requireVerifiedTLS:on:)``.
/// An event-loop driver would need a TLS client over memory BIOs and buy nothing at the rates of a small MTA.
public final class SMTPClientDriver: Sendable {
    /// Told a message's final results (its index in the session, its recipients' results) as its transaction ends.
    public typealias Settled = @Sendable (Int, [SMTPRecipientResult]) -> Void

    /// Which addresses may be reached.
    public let policy: AddressPolicy
    /// How long each connection attempt may take.
    public let connectTimeout: Duration
    private let tls: OutboundTLSContext
    private let resolver: any HostResolver

    /// A driver.
    /// - Parameters:
    ///   - policy: the outbound address policy (the same one webhooks follow).
    ///   - resolver: how a host name is looked up when no addresses are given: the server's one resolver
    ///     (`POSTERN_DNS_RESOLVER`).
    ///   - trustedRootsPEMFile: trust roots for certificate checks instead of the system's
    ///     (`POSTERN_OUTBOUND_TRUST_CA_FILE`, for tests).
    ///   - connectTimeout: per connection attempt. Default 30 s.
    /// - Throws: ``SocketError/tlsFailed`` when `trustedRootsPEMFile` is named and cannot be read.
    public init(
        policy: AddressPolicy, resolver: any HostResolver, trustedRootsPEMFile: String? = nil,
        connectTimeout: Duration = .seconds(30)
    ) throws(SocketError) {
        self.policy = policy
        self.resolver = resolver
        self.connectTimeout = connectTimeout
        self.tls = try OutboundTLSContext(trustedRootsPEMFile: trustedRootsPEMFile)
    }

    /// Runs `session` against `host`:`port` on one of `pool`'s threads.
    /// - Parameters:
    ///   - requireVerifiedTLS: the certificate must verify for `host` (MTA-STS `enforce`, a smarthost); false takes
    ///     any certificate, as opportunistic TLS does (RFC 7435), and reports the verdict.
    ///   - implicitTLS: TLS starts with the connection, before the greeting (`smtps://`, RFC 8314 §3.3).
    ///   - addresses: the addresses to connect to, in order (direct mode resolves MX hosts through its own resolver);
    ///     empty resolves `host` through the driver's resolver. TLS checks the certificate against `host` either way.
    ///   - settled: given each message's results once they are final (its transaction ended), on the session's
    ///     thread, before the session goes on; every message's results are in the report either way.
    public func deliver(
        _ session: SMTPClientSession, host: String, addresses: [String] = [], port: Int, requireVerifiedTLS: Bool,
        implicitTLS: Bool = false, on pool: WorkerPool, settled: Settled? = nil
    ) async -> SMTPDeliveryReport {
        do {
            return try await pool.run { [self] in
                deliverBlocking(
                    session, host: host, addresses: addresses, port: port, requireVerifiedTLS: requireVerifiedTLS,
                    implicitTLS: implicitTLS, settled: settled)
            }
        } catch {
            var session = session
            _ = session.connectionFailed(.connect("too many deliveries queued on this server"))
            return SMTPDeliveryReport(
                results: session.results, address: nil, usedTLS: false, certificateVerified: false)
        }
    }

    /// Runs `session` against `host`:`port` on the calling thread.
    /// - Warning: blocks for as long as the session lasts; never call it on an event loop or a Swift concurrency
    ///   thread.
    public func deliverBlocking(
        _ session: SMTPClientSession, host: String, addresses: [String] = [], port: Int, requireVerifiedTLS: Bool,
        implicitTLS: Bool = false, settled: Settled? = nil
    ) -> SMTPDeliveryReport {
        var session = session
        // Messages are decided in order: the first not yet told of.
        var unsettled = 0
        let connection: OutboundConnection
        do {
            connection = try connect(host: host, addresses: addresses, port: port)
        } catch {
            _ = session.connectionFailed(.connect("cannot connect to \(host): \(error)"))
            return SMTPDeliveryReport(
                results: session.results, address: nil, usedTLS: false, certificateVerified: false)
        }
        if implicitTLS {
            do {
                try connection.startTLS(
                    context: tls, serverName: host, requireVerified: requireVerifiedTLS,
                    timeout: session.configuration.timeouts.greeting)
            } catch {
                _ = session.connectionFailed(.tls("TLS with \(host): \(error)"))
                return SMTPDeliveryReport(
                    results: session.results, address: connection.address.description, usedTLS: false,
                    certificateVerified: false)
            }
        }
        var actions = session.connected(overTLS: implicitTLS)
        var tlsHandshakeFailed = false
        while !actions.isEmpty {
            let action = actions.removeFirst()
            switch action {
            case .send(let bytes, let timeout):
                do {
                    try connection.write(bytes, timeout: timeout)
                } catch {
                    actions = session.connectionFailed(.connect("writing to \(host): \(error)"))
                }
            case .startTLS:
                do {
                    try connection.startTLS(
                        context: tls, serverName: host, requireVerified: requireVerifiedTLS,
                        timeout: session.configuration.timeouts.command)
                    actions += session.tlsEstablished()
                } catch {
                    tlsHandshakeFailed = true
                    actions = session.connectionFailed(.tls("TLS with \(host): \(error)"))
                }
            case .awaitReply(let timeout):
                actions = awaitReply(&session, connection: connection, host: host, timeout: timeout)
                while let settled, unsettled < session.messages.count, session.isDecided(message: unsettled) {
                    settled(unsettled, session.results(of: unsettled))
                    unsettled += 1
                }
            case .close:
                actions = []
            }
        }
        return SMTPDeliveryReport(
            results: session.results, address: connection.address.description, usedTLS: connection.isEncrypted,
            certificateVerified: connection.isCertificateVerified, tlsHandshakeFailed: tlsHandshakeFailed)
    }

    /// Reads until the session has what it waited for (its next actions), the server closes, or `timeout` passes.
    private func awaitReply(
        _ session: inout SMTPClientSession, connection: OutboundConnection, host: String, timeout: Duration
    ) -> [SMTPClientAction] {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let remaining = deadline - clock.now
            guard remaining > .zero else { return session.timedOut() }
            let bytes: [UInt8]
            do {
                bytes = try connection.read(maxBytes: 16 * 1024, timeout: remaining)
            } catch .timedOut {
                return session.timedOut()
            } catch {
                return session.connectionFailed(.connect("reading from \(host): \(error)"))
            }
            if bytes.isEmpty { return session.connectionFailed(.connect("\(host) closed the connection")) }
            let next = session.receive(bytes)
            if !next.isEmpty { return next }
        }
    }

    /// The first of `addresses` that connects (each vetted by the address policy), or `host` resolved by the driver's
    /// resolver.
    private func connect(host: String, addresses: [String], port: Int) throws(SocketError) -> OutboundConnection {
        guard !addresses.isEmpty else {
            return try OutboundConnection.open(
                host: host, port: port, policy: policy, resolver: resolver, connectTimeout: connectTimeout,
                totalTimeout: connectTimeout * 2)
        }
        var lastError = SocketError.connectFailed
        for address in addresses {
            do {
                return try OutboundConnection.open(
                    host: address, port: port, policy: policy, resolver: resolver, connectTimeout: connectTimeout,
                    totalTimeout: connectTimeout * 2)
            } catch {
                if case .notAllowed = error { throw error }
                lastError = error
            }
        }
        throw lastError
    }
}
