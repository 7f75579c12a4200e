import COpenSSL

/// SHA-256 through OpenSSL's EVP interface.
public enum SHA256 {
    /// The digest length in bytes.
    public static let byteCount = 32

    /// Returns the 32-byte SHA-256 digest of `bytes`.
    public static func hash<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ digest($0) }) { return digest }
        return Array(bytes).withUnsafeBufferPointer { digest($0) }
    }

    /// Returns the 32-byte SHA-256 digest of the UTF-8 bytes of `text`.
    public static func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { digest($0) }
    }

    /// Returns the 32-byte SHA-256 digest of the bytes `input` points to, without copying them.
    public static func hash(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        digest(input)
    }

    private static func digest(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        oneShotDigest(input, messageDigest, byteCount: byteCount, name: "SHA-256")
    }

    /// SHA-256 fetched from the provider store once. `EVP_sha256()` is a legacy handle: every `EVP_Digest` and
    /// every context set up with it fetches the implementation again, a lookup under the store's lock (OpenSSL 3).
    /// `EVP_sha256()` when the fetch fails (the digest is the same; only that lookup comes back).
    static var messageDigest: OpaquePointer? { fetched.pointer ?? EVP_sha256() }

    /// `@unchecked Sendable`: a fetched `EVP_MD` is immutable and OpenSSL allows it to be shared between threads;
    /// it is never freed (it lives as long as the process).
    private struct Fetched: @unchecked Sendable { let pointer: OpaquePointer? }
    private static let fetched = Fetched(pointer: EVP_MD_fetch(nil, "SHA256", nil))
}

/// `EVP_Digest` of `input` with `type`, which gives `byteCount` bytes; traps only on allocation failure inside
/// OpenSSL, the one way a digest of a fixed algorithm fails.
func oneShotDigest(
    _ input: UnsafeBufferPointer<UInt8>, _ type: OpaquePointer?, byteCount: Int, name: String
) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: byteCount) { output, initialized in
        var length: UInt32 = 0
        guard EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, type, nil) == 1,
            length == byteCount
        else {
            fatalError("EVP_Digest(\(name)) failed: \(drainOpenSSLErrors(fallback: "no reason"))")
        }
        initialized = byteCount
    }
}

/// A SHA-256 digest computed over bytes given in pieces (a file read in chunks), through OpenSSL's EVP interface.
/// Not thread-safe: one hasher belongs to one task.
public final class SHA256Hasher {
    private let context: OpaquePointer

    /// A hasher over no bytes yet.
    public init() {
        // EVP_MD_CTX_new and EVP_DigestInit_ex with SHA-256 only fail on allocation failure inside OpenSSL.
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("EVP_DigestInit_ex(SHA-256) failed: \(drainOpenSSLErrors(fallback: "no reason"))")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `bytes` to the digest.
    public func update<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        let add = { (buffer: UnsafeBufferPointer<UInt8>) in
            guard EVP_DigestUpdate(self.context, buffer.baseAddress, buffer.count) == 1 else {
                fatalError("EVP_DigestUpdate(SHA-256) failed: \(drainOpenSSLErrors(fallback: "no reason"))")
            }
        }
        if bytes.withContiguousStorageIfAvailable(add) == nil { Array(bytes).withUnsafeBufferPointer(add) }
    }

    /// The 32-byte digest of every byte given; the hasher is spent afterwards.
    public func finish() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: SHA256.byteCount) { output, initialized in
            var length: UInt32 = 0
            guard EVP_DigestFinal_ex(context, output.baseAddress, &length) == 1, length == SHA256.byteCount else {
                fatalError("EVP_DigestFinal_ex(SHA-256) failed: \(drainOpenSSLErrors(fallback: "no reason"))")
            }
            initialized = SHA256.byteCount
        }
    }
}
