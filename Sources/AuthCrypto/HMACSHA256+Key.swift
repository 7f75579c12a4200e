import COpenSSL
import Synchronization

extension HMACSHA256 {
    /// An HMAC-SHA256 key prepared once (OpenSSL fetch and key schedule), for many MACs.
    ///
    /// Each MAC works on a context of its own, taken from a few kept for reuse (or duplicated from the
    /// prepared one when all are in use), so one key serves many threads at once; this is several
    /// times faster than the one-shot function for short messages. A context goes back after its MAC,
    /// re-initialized with the same key (`EVP_MAC_init` without a key only resets HMAC's state), which
    /// saves duplicating and freeing three digest contexts per MAC.
    ///
    /// `@unchecked Sendable`: the prepared `EVP_MAC_CTX` is never modified after `init`; calls only
    /// read it through `EVP_MAC_CTX_dup`, which takes it as `const`. A kept context is used by one
    /// call at a time: the mutex hands it out and takes it back.
    public final class Key: @unchecked Sendable {
        private let template: OpaquePointer
        private let spares = Mutex<[Spare]>([])
        /// A kept context; only the mutex's holder touches it.
        private struct Spare: @unchecked Sendable { let context: OpaquePointer }
        /// Contexts kept for reuse: one per thread that signs at once, on the machines Postern runs on.
        private static var keptContexts: Int { 16 }

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
            template = context
        }

        deinit {
            for spare in spares.withLock({ $0 }) { EVP_MAC_CTX_free(spare.context) }
            EVP_MAC_CTX_free(template)
        }

        /// Returns the 32-byte HMAC-SHA256 of `message`.
        public func authenticationCode(_ message: UnsafeBufferPointer<UInt8>) -> [UInt8] {
            guard let context = spares.withLock({ $0.popLast()?.context }) ?? EVP_MAC_CTX_dup(template) else {
                fatalError("EVP_MAC_CTX_dup failed: \(drainOpenSSLErrors(fallback: "no reason"))")
            }
            defer { giveBack(context) }
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

        /// Resets a used context to the key's initial state and keeps it, unless enough are kept.
        private func giveBack(_ context: OpaquePointer) {
            let kept =
                EVP_MAC_init(context, nil, 0, nil) == 1
                && spares.withLock { spares in
                    guard spares.count < Self.keptContexts else { return false }
                    spares.append(Spare(context: context))
                    return true
                }
            if !kept { EVP_MAC_CTX_free(context) }
        }

        /// Returns the 32-byte HMAC-SHA256 of `message`.
        public func authenticationCode(_ message: [UInt8]) -> [UInt8] {
            message.withUnsafeBufferPointer { authenticationCode($0) }
        }
    }
}
