#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Trust roots for ``OutboundConnection/startTLS(context:serverName:requireVerified:timeout:)``: the system store
/// or a PEM file (tests, private PKI), loaded on first use and then shared.
public final class OutboundTLSContext: Sendable {
    private let lazy: LazyTLSContext

    /// - Parameter trustedRootsPEMFile: nil for the system store, else a PEM bundle trusted instead.
    /// - Throws: ``FetchError/tlsFailed`` at once when the file is named but cannot be read.
    public init(trustedRootsPEMFile: String?) throws(FetchError) {
        lazy = try LazyTLSContext(trustedRootsPEMFile: trustedRootsPEMFile)
    }

    func get() throws(FetchError) -> TLSContext { try lazy.get() }
}

/// A blocking TCP connection for a protocol other than HTTP (SMTP), under the same address policy as every other
/// outbound request, which may turn into TLS midway (STARTTLS). Each read and write waits at most the timeout it is
/// given. Owned: closed when released.
///
/// Not `Sendable`: one thread uses it at a time (the driver of one session).
public final class OutboundConnection {
    private let tcp: TCPConnection
    private var tls: TLSStream?
    /// The address connected to.
    public let address: FetchTargetAddress
    /// Whether TLS is on.
    public var isEncrypted: Bool { tls != nil }
    /// Whether the peer's certificate verified for the server name given to `startTLS` (false before TLS).
    public var isCertificateVerified: Bool { tls?.isVerified ?? false }

    private static let resolver = Resolver(maxOutstanding: 32)

    private init(tcp: TCPConnection, address: FetchTargetAddress) {
        self.tcp = tcp
        self.address = address
    }

    /// Resolves `host` (or takes it as an IP literal), vets every address with `policy` (one refused address refuses
    /// the host, as for fetches), and connects to the first that answers.
    /// - Parameters:
    ///   - connectTimeout: for each address tried.
    ///   - totalTimeout: for the lookup and every attempt together.
    /// - Throws: ``FetchError/notAllowed(_:)``, ``FetchError/resolutionFailed``, ``FetchError/connectFailed`` or
    ///   ``FetchError/timedOut``.
    public static func open(
        host: String, port: Int, policy: AddressPolicy, connectTimeout: Duration, totalTimeout: Duration
    ) throws(FetchError) -> OutboundConnection {
        // A peer that closes mid-write must not kill the process (OpenSSL writes with write(2)).
        signal(SIGPIPE, SIG_IGN)
        let deadline = Deadline.after(totalTimeout)
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        let addresses: [FetchTargetAddress]
        if let literal = FetchTargetAddress(literal: name) {
            addresses = [literal]
        } else {
            if name == "localhost" || name.hasSuffix(".localhost"), !policy.allows(.v4(0x7f00_0001), host: name) {
                throw .notAllowed(.loopback)
            }
            addresses = try resolver.resolve(name, deadline: deadline)
        }
        for address in addresses where !policy.allows(address, host: host) {
            throw .notAllowed(AddressPolicy.category(of: address))
        }
        var lastError = FetchError.connectFailed
        for address in addresses {
            if deadline.hasPassed { throw .timedOut }
            do {
                let tcp = try TCPConnection.connect(
                    to: address, port: port, timeout: connectTimeout, deadline: deadline)
                return OutboundConnection(tcp: tcp, address: address)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// Runs the TLS handshake on the connection (nothing unread may be pending: the caller checked).
    /// - Parameters:
    ///   - serverName: sent as SNI and checked against the certificate (an IP literal is checked as an address).
    ///   - requireVerified: fail the handshake unless the chain verifies for `serverName`; false completes it
    ///     whatever the certificate and records the verdict in ``isCertificateVerified``.
    /// - Throws: ``FetchError/tlsFailed`` or ``FetchError/timedOut``.
    public func startTLS(context: OutboundTLSContext, serverName: String, requireVerified: Bool, timeout: Duration)
        throws(FetchError)
    {
        let isAddress = FetchTargetAddress(literal: serverName) != nil
        tls = try TLSStream(
            context: context.get(), connection: tcp, host: serverName, isAddress: isAddress,
            requireVerified: requireVerified, deadline: Deadline.after(timeout))
    }

    /// Writes every byte in blocks of 64 KiB, each block within `timeout` (so a long message on a slow link is not
    /// cut off while it makes progress).
    /// - Throws: ``FetchError/timedOut`` or ``FetchError/malformedResponse`` (the connection broke).
    public func write(_ bytes: [UInt8], timeout: Duration) throws(FetchError) {
        let stream: ByteStream = tls ?? tcp
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + 64 * 1024)
            try stream.writeAll(Array(bytes[offset..<end]), deadline: Deadline.after(timeout))
            offset = end
        }
    }

    /// Reads up to `maxBytes`, waiting at most `timeout`; empty when the peer closed the connection.
    /// - Throws: ``FetchError/timedOut`` or ``FetchError/malformedResponse`` (the connection broke).
    public func read(maxBytes: Int, timeout: Duration) throws(FetchError) -> [UInt8] {
        let stream: ByteStream = tls ?? tcp
        return try stream.read(maxBytes: maxBytes, deadline: Deadline.after(timeout))
    }
}
