import COpenSSL

/// An OpenSSL server context (`SSL_CTX`): TLS 1.2 or newer, one certificate chain and its private key, no client
/// certificates asked for. Owned: freed in `deinit`.
///
/// `@unchecked Sendable`: an `SSL_CTX` is configured only in `init` and afterwards only passed to `SSL_new`, which
/// OpenSSL documents as safe from many threads.
public final class TLSServerContext: @unchecked Sendable {
    let context: OpaquePointer

    /// Loads the certificate chain and the key from PEM files.
    /// - Parameters:
    ///   - certificateChainFile: the server certificate first, then any intermediates (PEM).
    ///   - privateKeyFile: the certificate's unencrypted private key (PEM).
    /// - Throws: ``TLSError`` when a file cannot be read or parsed, or the key does not match the certificate.
    public init(certificateChainFile: String, privateKeyFile: String) throws(TLSError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw TLSError("SSL_CTX_new") }
        self.context = context
        guard postern_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw TLSError("setting the minimum TLS version")
        }
        guard SSL_CTX_use_certificate_chain_file(context, certificateChainFile) == 1 else {
            throw TLSError("reading the certificate chain")
        }
        guard SSL_CTX_use_PrivateKey_file(context, privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            throw TLSError("reading the private key")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw TLSError("the private key does not match the certificate")
        }
    }

    deinit {
        SSL_CTX_free(context)
    }
}
