import COpenSSL
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An OpenSSL client context (`SSL_CTX`): TLS 1.2 or newer, peer verification on, trust roots from
/// the system CA store or a given PEM file. Owned: freed in `deinit`.
final class TLSContext: @unchecked Sendable {
    // @unchecked: an SSL_CTX is safe to share between threads once configured; it is configured
    // only in `init` and afterwards only passed to `SSL_new`, which OpenSSL documents as thread-safe.
    let context: OpaquePointer

    /// - Parameter trustedRootsPEMFile: nil for the system store, else a PEM bundle to trust instead.
    /// - Throws: ``SocketError/tlsFailed`` when OpenSSL cannot build the context or load the roots.
    init(trustedRootsPEMFile: String?) throws(SocketError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .tlsFailed }
        self.context = context
        guard postern_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else { throw .tlsFailed }
        _ = postern_SSL_CTX_ignore_unexpected_eof(context)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        let loaded: Int32
        if let file = trustedRootsPEMFile {
            loaded = SSL_CTX_load_verify_locations(context, file, nil)
        } else {
            loaded = SSL_CTX_set_default_verify_paths(context)
        }
        guard loaded == 1 else {
            ERR_clear_error()
            throw .tlsFailed
        }
    }

    deinit {
        SSL_CTX_free(context)
    }
}

/// A ``TLSContext`` built on first use, then shared.
///
/// Loading the trust roots parses the whole CA bundle (about 25 ms of CPU and 1.4 MiB with the
/// system store), which most processes never need: only an `https` remote hash does. A failed build is
/// not remembered, so the next TLS fetch tries again (for example after the roots file appears).
final class LazyTLSContext: Sendable {
    private let built = Mutex<TLSContext?>(nil)
    private let trustedRootsPEMFile: String?

    /// - Parameter trustedRootsPEMFile: as for ``TLSContext/init(trustedRootsPEMFile:)``.
    /// - Throws: ``SocketError/tlsFailed`` at once when a roots file is named but cannot be read, so
    ///   that a wrong path still stops the start-up rather than the first fetch.
    init(trustedRootsPEMFile: String?) throws(SocketError) {
        if let file = trustedRootsPEMFile, access(file, R_OK) != 0 { throw .tlsFailed }
        self.trustedRootsPEMFile = trustedRootsPEMFile
    }

    /// The context, built now if this is the first call.
    /// - Throws: ``SocketError/tlsFailed`` when OpenSSL cannot build it or load the roots.
    func get() throws(SocketError) -> TLSContext {
        try built.withLock { (built) throws(SocketError) -> TLSContext in
            if let built { return built }
            let context = try TLSContext(trustedRootsPEMFile: trustedRootsPEMFile)
            built = context
            return context
        }
    }
}

/// One TLS session over a ``TCPConnection``: SNI and host-name (or IP) verification set before the
/// handshake. Owned: `SSL_free` in `deinit`.
public final class TLSStream: ByteStream {
    private let ssl: OpaquePointer
    private let connection: TCPConnection

    /// Whether the peer's chain verified against the trust roots and named `host` (always true when the handshake
    /// required it).
    public private(set) var isVerified = false

    /// Performs the handshake.
    /// - Parameters:
    ///   - host: the host as text: a name gets SNI and `SSL_set1_host`; an IP literal (IPv6 without brackets) gets an
    ///     iPAddress check and no SNI (RFC 6066 forbids literals there).
    ///   - requireVerified: false to complete the handshake whatever the certificate (opportunistic SMTP TLS, RFC
    ///     7435) and only record the verdict in ``isVerified``; true (HTTPS) fails an unverified peer.
    /// - Throws: ``SocketError/tlsFailed`` or ``SocketError/timedOut``.
    public init(
        context: OutboundTLSContext, connection: TCPConnection, host: String, requireVerified: Bool = true,
        deadline: Deadline
    ) throws(SocketError) {
        let isAddress = RemoteAddress(literal: host) != nil
        let context = try context.get()
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else { throw .tlsFailed }
        self.ssl = ssl
        self.connection = connection
        guard SSL_set_fd(ssl, connection.descriptor) == 1 else { throw .tlsFailed }
        if isAddress {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else { throw .tlsFailed }
        } else {
            guard postern_SSL_set_tlsext_host_name(ssl, host) == 1, SSL_set1_host(ssl, host) == 1 else {
                throw .tlsFailed
            }
        }
        if !requireVerified { SSL_set_verify(ssl, SSL_VERIFY_NONE, nil) }
        while true {
            ERR_clear_error()
            let result = SSL_connect(ssl)
            if result == 1 { break }
            try waitOrFail(result, deadline: deadline, failure: .tlsFailed)
        }
        isVerified = SSL_get_verify_result(ssl) == X509_V_OK
        guard isVerified || !requireVerified else { throw .tlsFailed }
    }

    deinit {
        SSL_free(ssl)
    }

    public func writeAll(_ bytes: [UInt8], deadline: Deadline) throws(SocketError) {
        var offset = 0
        while offset < bytes.count {
            ERR_clear_error()
            let written = bytes[offset...].withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            if written > 0 {
                offset += Int(written)
            } else {
                try waitOrFail(written, deadline: deadline, failure: .broken)
            }
        }
    }

    public func read(maxBytes: Int, deadline: Deadline) throws(SocketError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maxBytes)
        while true {
            ERR_clear_error()
            let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 { return Array(buffer[..<Int(count)]) }
            if SSL_get_error(ssl, count) == SSL_ERROR_ZERO_RETURN { return [] }
            try waitOrFail(count, deadline: deadline, failure: .broken)
        }
    }

    /// After an SSL call returned `result`: waits for the socket when OpenSSL asks to, else throws.
    private func waitOrFail(_ result: Int32, deadline: Deadline, failure: SocketError) throws(SocketError) {
        let error = SSL_get_error(ssl, result)
        ERR_clear_error()
        let events: Int16
        switch error {
        case SSL_ERROR_WANT_READ: events = Int16(POLLIN)
        case SSL_ERROR_WANT_WRITE: events = Int16(POLLOUT)
        default: throw failure
        }
        guard try connection.wait(for: events, deadline: deadline) else { throw .timedOut }
    }
}
