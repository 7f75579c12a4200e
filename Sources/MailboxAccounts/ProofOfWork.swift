import AuthCrypto

/// The mailbox proof of work: `SHA-256(UTF-8(salt) ‖ UTF-8(nonce))` must start with `difficulty` zero
/// bits, most significant bit first.
public enum ProofOfWork {
    /// Whether `nonce` is acceptable at all: 1 to 64 printable ASCII characters (0x20 to 0x7E).
    public static func isWellFormedNonce(_ nonce: String) -> Bool {
        let bytes = nonce.utf8
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// Number of leading zero bits of `bytes`, most significant bit of the first byte first.
    public static func leadingZeroBits(_ bytes: [UInt8]) -> Int {
        var count = 0
        for byte in bytes {
            if byte == 0 {
                count += 8
                continue
            }
            return count + byte.leadingZeroBitCount
        }
        return count
    }

    /// The digest a proof is judged by.
    public static func digest(salt: String, nonce: String) -> [UInt8] {
        SHA256.hash(Array(salt.utf8) + Array(nonce.utf8))
    }

    /// Whether `nonce` is well formed and solves `salt` at `difficulty`.
    public static func isValid(salt: String, nonce: String, difficulty: Int) -> Bool {
        guard isWellFormedNonce(nonce) else { return false }
        return leadingZeroBits(digest(salt: salt, nonce: nonce)) >= difficulty
    }

    /// Finds the smallest decimal nonce that solves `salt` at `difficulty` (for tests and clients).
    public static func solve(salt: String, difficulty: Int) -> String {
        var counter: UInt64 = 0
        while true {
            let nonce = String(counter)
            if isValid(salt: salt, nonce: nonce, difficulty: difficulty) { return nonce }
            counter += 1
        }
    }
}
