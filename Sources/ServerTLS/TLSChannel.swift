import COpenSSL

/// One server-side TLS session over memory BIOs: the socket's bytes go in with ``receive(_:)``, what the peer
/// should get comes out with ``takeCiphertext(_:)``, and plaintext crosses with ``readPlaintext(into:)`` and
/// ``writePlaintext(_:)``. It never touches a socket, so it never blocks, and the event loop that owns the socket
/// decides when bytes move. Owned: `SSL_free` (which frees both BIOs) in `deinit`.
///
/// Not `Sendable`: a session is used by one connection on its loop.
public final class TLSChannel {
    private let ssl: OpaquePointer
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer
    /// The handshake completed.
    public private(set) var isEstablished = false
    /// The peer sent its close_notify.
    public private(set) var peerClosed = false

    /// Starts a server session (the handshake runs as the client's bytes arrive).
    /// - Throws: ``TLSError`` when OpenSSL cannot make the session.
    public init(context: TLSServerContext) throws(TLSError) {
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else { throw TLSError("SSL_new") }
        guard let incoming = BIO_new(BIO_s_mem()), let outgoing = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw TLSError("BIO_new")
        }
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        SSL_set_bio(ssl, incoming, outgoing)  // the session owns both from here
        SSL_set_accept_state(ssl)
    }

    deinit {
        SSL_free(ssl)
    }

    /// Hands the session bytes read from the socket.
    public func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        _ = BIO_write(incoming, bytes.baseAddress, Int32(bytes.count))  // a memory BIO takes everything
    }

    /// Advances the handshake and appends what the peer's records decrypt to.
    /// - Returns: whether the handshake is complete (plaintext flows only then).
    /// - Throws: ``TLSError`` when the handshake fails or a record is bad: the connection must close.
    @discardableResult
    public func readPlaintext(into plaintext: inout [UInt8]) throws(TLSError) -> Bool {
        if !isEstablished {
            ERR_clear_error()
            let result = SSL_do_handshake(ssl)
            if result != 1 {
                try check(result, "TLS handshake")
                return false
            }
            isEstablished = true
        }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while !peerClosed {
            ERR_clear_error()
            let count = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                plaintext.append(contentsOf: chunk[..<Int(count)])
                continue
            }
            if SSL_get_error(ssl, count) == SSL_ERROR_ZERO_RETURN {
                peerClosed = true
                break
            }
            try check(count, "TLS read")
            break
        }
        return true
    }

    /// Encrypts `bytes` (all of them: the outgoing BIO grows); only once the handshake is complete.
    /// - Throws: ``TLSError`` when the session is broken.
    public func writePlaintext(_ bytes: UnsafeRawBufferPointer) throws(TLSError) {
        guard !bytes.isEmpty else { return }
        ERR_clear_error()
        let written = SSL_write(ssl, bytes.baseAddress, Int32(bytes.count))
        guard written == Int32(bytes.count) else { throw TLSError("TLS write") }
    }

    /// Bytes waiting for the socket.
    public var pendingCiphertext: Int { Int(BIO_ctrl_pending(outgoing)) }

    /// Moves up to `room.count` bytes waiting for the socket into `room`; returns how many.
    public func takeCiphertext(_ room: UnsafeMutableBufferPointer<UInt8>) -> Int {
        guard !room.isEmpty else { return 0 }
        let count = BIO_read(outgoing, room.baseAddress, Int32(room.count))
        return max(0, Int(count))
    }

    /// After a call returned `result`: nothing when OpenSSL only waits for more of the peer's bytes, else throws.
    private func check(_ result: Int32, _ operation: String) throws(TLSError) {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            ERR_clear_error()
        default:
            throw TLSError(operation)
        }
    }
}
