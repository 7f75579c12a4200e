import AuthCrypto

extension AgentProofOfWork {
    /// The 64-byte scrypt output for `challenge`, `nonce` and the salt text (UTF-8 bytes, never decoded hex).
    ///
    /// CPU- and memory-heavy (about 16 MiB, tens of milliseconds): run it on a worker pool, never on an
    /// I/O thread.
    /// - Throws: `CryptoError` when libscrypt fails (out of memory).
    public static func digest(challenge: String, nonce: String, salt: String) throws -> [UInt8] {
        try Scrypt.derive(
            password: password(challenge: challenge, nonce: nonce), salt: Array(salt.utf8), n: n, r: r, p: p,
            length: derivedKeyLength)
    }
}
