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
    /// - Throws: ``SocketError/tlsFailed`` at once when the file is named but cannot be read.
    public init(trustedRootsPEMFile: String?) throws(SocketError) {
        lazy = try LazyTLSContext(trustedRootsPEMFile: trustedRootsPEMFile)
    }

    func get() throws(SocketError) -> TLSContext { try lazy.get() }
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
    public let address: RemoteAddress
    /// Whether TLS is on.
    public var isEncrypted: Bool { tls != nil }
    /// Whether the peer's certificate verified for the server name given to `startTLS` (false before TLS).
    public var isCertificateVerified: Bool { tls?.isVerified ?? false }

    private init(tcp: TCPConnection, address: RemoteAddress) {
        self.tcp = tcp
        self.address = address
    }

    /// Resolves `host` through `resolver` (or takes it as an IP literal), vets every address with `policy` (one refused
    /// address refuses the host, as for fetches), and connects to the first that answers.
    /// - Parameters:
    ///   - resolver: the server's one resolver (`POSTERN_DNS_RESOLVER`).
    ///   - connectTimeout: for each address tried.
    ///   - totalTimeout: for the lookup and every attempt together.
    /// - Throws: ``SocketError/notAllowed(_:)``, ``SocketError/resolutionFailed``, ``SocketError/connectFailed`` or
    ///   ``SocketError/timedOut``.
    public static func open(
        host: String, port: Int, policy: AddressPolicy, resolver: any HostResolver, connectTimeout: Duration,
        totalTimeout: Duration
    ) throws(SocketError) -> OutboundConnection {
        // A peer that closes mid-write must not kill the process (OpenSSL writes with write(2)).
        signal(SIGPIPE, SIG_IGN)
        let deadline = Deadline.after(totalTimeout)
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        let target = RemoteAddress(literal: name).map(RemoteHost.address) ?? .name(name)
        let addresses = try policy.vettedAddresses(of: target, hostText: host, resolver: resolver, deadline: deadline)
        let (tcp, address) = try TCPConnection.connect(
            toFirstOf: addresses, port: port, timeout: connectTimeout, deadline: deadline)
        return OutboundConnection(tcp: tcp, address: address)
    }

    /// Runs the TLS handshake on the connection (nothing unread may be pending: the caller checked).
    /// - Parameters:
    ///   - serverName: sent as SNI and checked against the certificate (an IP literal is checked as an address).
    ///   - requireVerified: fail the handshake unless the chain verifies for `serverName`; false completes it
    ///     whatever the certificate and records the verdict in ``isCertificateVerified``.
    /// - Throws: ``SocketError/tlsFailed`` or ``SocketError/timedOut``.
    public func startTLS(context: OutboundTLSContext, serverName: String, requireVerified: Bool, timeout: Duration)
        throws(SocketError)
    {
        tls = try TLSStream(
            context: context, connection: tcp, host: serverName, requireVerified: requireVerified,
            deadline: Deadline.after(timeout))
    }

    /// Writes every byte in blocks of 64 KiB, each block within `timeout` (so a long message on a slow link is not
    /// cut off while it makes progress).
    /// - Throws: ``SocketError/timedOut`` or ``SocketError/broken``.
    public func write(_ bytes: [UInt8], timeout: Duration) throws(SocketError) {
        let stream: ByteStream = tls ?? tcp
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + 64 * 1024)
            try stream.writeAll(Array(bytes[offset..<end]), deadline: Deadline.after(timeout))
            offset = end
        }
    }

    /// Reads up to `maxBytes`, waiting at most `timeout`; empty when the peer closed the connection.
    /// - Throws: ``SocketError/timedOut`` or ``SocketError/broken``.
    public func read(maxBytes: Int, timeout: Duration) throws(SocketError) -> [UInt8] {
        let stream: ByteStream = tls ?? tcp
        return try stream.read(maxBytes: maxBytes, deadline: Deadline.after(timeout))
    }
}
