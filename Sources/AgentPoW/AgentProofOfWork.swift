import AuthCrypto

/// The agent proof-of-work rules of CONTRACT.md 1.2, as pure functions.
///
/// `powHex` is the lowercase hex of `scrypt(password: UTF-8("<jti>:<nonce>"), salt: UTF-8(<salt text>),
/// N: 16384, r: 8, p: 1, dkLen: 64)`; it is valid when its first `difficulty` bits, most significant
/// first, are zero.
public enum AgentProofOfWork {
    /// The hosted service's salt text, used when the operator sets none.
    public static let defaultSalt = "0b980734412c292d6549110276b604ab1dea4883bd460d77d1b984adf8bca083"

    /// scrypt cost parameter N.
    public static let n: UInt64 = 16_384
    /// scrypt block size r.
    public static let r: UInt32 = 8
    /// scrypt parallelism p.
    public static let p: UInt32 = 1
    /// Length of the derived key in bytes.
    public static let derivedKeyLength = 64
    /// The largest meaningful difficulty: every bit of the derived key.
    public static let maximumDifficulty = 512
    /// Longest accepted decimal nonce (UInt64 has at most 20 digits).
    public static let maximumNonceDigits = 20

    /// The scrypt password for a challenge and a nonce: the UTF-8 bytes of `"<challenge>:<nonce>"`.
    public static func password(challenge: String, nonce: String) -> [UInt8] {
        Array("\(challenge):\(nonce)".utf8)
    }

    /// Number of leading zero bits of `bytes`, most significant bit of the first byte first.
    public static func leadingZeroBits<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int {
        var count = 0
        for byte in bytes {
            if byte == 0 {
                count += 8
            } else {
                return count + byte.leadingZeroBitCount
            }
        }
        return count
    }

    /// Whether `digest` starts with at least `difficulty` zero bits.
    public static func meets<Bytes: Collection<UInt8>>(difficulty: Int, _ digest: Bytes) -> Bool {
        difficulty <= 0 || leadingZeroBits(digest) >= difficulty
    }

    /// Decodes a submitted `powHex`: exactly 128 hexadecimal characters (either case) to 64 bytes.
    /// - Returns: the bytes, or `nil` when the text has another length or a non-hex character.
    public static func decodePowHex(_ text: String) -> [UInt8]? {
        guard text.utf8.count == derivedKeyLength * 2 else { return nil }
        return Hex.decode(text)
    }

    /// Whether `nonce` is a decimal nonce as clients send it: 1 to 20 ASCII digits.
    public static func isValidNonce(_ nonce: String) -> Bool {
        let utf8 = nonce.utf8
        return !utf8.isEmpty && utf8.count <= maximumNonceDigits && utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
