import AuthCrypto
import PasswordHashing

/// Mail.td's `auth_key` and the verifier Postern stores of it.
///
/// `auth_key = Argon2id(password, salt = SHA-256(lower(trim(address))), t=3, m=16384 KiB, p=1, 32 bytes)`, as
/// Mail.td's v2 SDK derives it on the client. A v1 client sends the password and the server derives the same key, so
/// an account made by either protocol signs in with either. Only `SHA-256(auth_key)` is stored: the key is already
/// the output of a memory-hard function salted per address, so a leaked verifier still costs an attacker one
/// Argon2id per guessed password.
enum MailboxAuthKey {
    /// Bytes of a key (64 hex characters on the wire).
    static let length = 32
    /// The key a v1 password stands for. `address` is the normalised (lower-case) address.
    static func derive(address: String, password: String, parameters: Argon2Parameters) throws -> [UInt8] {
        try Argon2.rawHash(
            password: Array(password.utf8), salt: SHA256.hash(address), variant: .id,
            memoryKiB: parameters.memoryKiB, iterations: parameters.iterations, parallelism: parameters.parallelism,
            length: length)
    }

    /// What the database keeps of a key.
    static func verifier(_ key: [UInt8]) -> [UInt8] { SHA256.hash(key) }
}
