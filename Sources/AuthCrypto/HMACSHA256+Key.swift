import COpenSSL

extension HMACSHA256 {
    /// An HMAC-SHA256 key prepared once (OpenSSL fetch and key schedule), for many MACs.
    ///
    /// Each MAC works on a context of its own, taken from the ``OpenSSLContextPool`` of the prepared one
    /// (`EVP_MAC_CTX_dup` takes it as `const`), so one key serves many threads at once; this is several
    /// times faster than the one-shot function for short messages. A context goes back after its MAC,
    /// re-initialized with the same key (`EVP_MAC_init` without a key only resets HMAC's state), which
    /// saves duplicating and freeing three digest contexts per MAC.
    public final class Key: Sendable {
        private let contexts: OpenSSLContextPool

        /// Prepares `secret` (any length; at least 32 random bytes for tokens).
        /// - Throws: `CryptoError` `.digestFailed` when OpenSSL cannot set up HMAC.
        public init(_ secret: [UInt8]) throws(CryptoError) {
            guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { throw openSSLError(.digestFailed, "EVP_MAC_fetch") }
            defer { EVP_MAC_free(mac) }
            guard let context = EVP_MAC_CTX_new(mac) else { throw openSSLError(.digestFailed, "EVP_MAC_CTX_new") }
            let initialized = "digest".withCString { name in
                "SHA256".withCString { digest in
                    var parameters = [
                        OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: digest), 0),
                        OSSL_PARAM_construct_end(),
                    ]
                    return secret.withNonNullPointer { key, count in
                        EVP_MAC_init(context, key, count, &parameters) == 1
                    }
                }
            }
            guard initialized else {
                EVP_MAC_CTX_free(context)
                throw openSSLError(.digestFailed, "EVP_MAC_init")
            }
            contexts = OpenSSLContextPool(
                template: context, duplicate: { EVP_MAC_CTX_dup($0) }, free: { EVP_MAC_CTX_free($0) })
        }

        /// Returns the 32-byte HMAC-SHA256 of `message`.
        public func authenticationCode(_ message: UnsafeBufferPointer<UInt8>) -> [UInt8] {
            guard let context = contexts.take() else {
                fatalError("EVP_MAC_CTX_dup failed: \(drainOpenSSLErrors(fallback: "no reason"))")
            }
            defer { contexts.giveBack(context, reusable: EVP_MAC_init(context, nil, 0, nil) == 1) }
            return [UInt8](unsafeUninitializedCapacity: byteCount) { output, initialized in
                var length = 0
                guard EVP_MAC_update(context, message.baseAddress, message.count) == 1,
                    EVP_MAC_final(context, output.baseAddress, &length, byteCount) == 1, length == byteCount
                else {
                    fatalError("HMAC(SHA-256) failed: \(drainOpenSSLErrors(fallback: "no reason"))")
                }
                initialized = byteCount
            }
        }

        /// Returns the 32-byte HMAC-SHA256 of `message`.
        public func authenticationCode(_ message: [UInt8]) -> [UInt8] {
            message.withUnsafeBufferPointer { authenticationCode($0) }
        }
    }
}
