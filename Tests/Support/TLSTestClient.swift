import COpenSSL

/// A TLS client over memory BIOs for driving a server-side machine with no socket: the test moves the bytes.
/// Verifies nothing (the server's certificate is self-signed).
public final class TLSTestClient {
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer

    public init() {
        context = SSL_CTX_new(TLS_client_method())!
        ssl = SSL_new(context)!
        incoming = BIO_new(BIO_s_mem())!
        outgoing = BIO_new(BIO_s_mem())!
        SSL_set_bio(ssl, incoming, outgoing)
        SSL_set_connect_state(ssl)
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// Whether the handshake completed (after one more `advance`).
    public var isEstablished: Bool { SSL_is_init_finished(ssl) == 1 }

    /// Takes the server's bytes, advances the handshake, and returns the plaintext they carried.
    @discardableResult
    public func receive(_ bytes: [UInt8]) -> String {
        if !bytes.isEmpty { _ = bytes.withUnsafeBytes { BIO_write(incoming, $0.baseAddress, Int32($0.count)) } }
        if !isEstablished { _ = SSL_do_handshake(ssl) }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while isEstablished {
            let count = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count <= 0 { break }
            text += chunk[..<Int(count)]
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Encrypts `text`.
    public func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
    }

    /// Sends the close_notify alert (its record is then in ``takeOutput()``).
    public func close() {
        _ = SSL_shutdown(ssl)
    }

    /// Records waiting for the server.
    public func takeOutput() -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { BIO_read(outgoing, $0.baseAddress, Int32($0.count)) }
            if count <= 0 { break }
            bytes += chunk[..<Int(count)]
        }
        return bytes
    }
}
