import AuthCrypto

/// Why a TLS context or session failed. The text names the operation and OpenSSL's reason string, which describes
/// the failure, never key material or peer data.
public struct TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The operation that failed and OpenSSL's reason.
    public let description: String

    init(_ operation: String) {
        description = "\(operation): \(drainOpenSSLErrors(fallback: "no OpenSSL error queued"))"
    }
}
