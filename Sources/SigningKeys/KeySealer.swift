import AuthCrypto
import Storage
import Synchronization

/// Seals key material for the database with AES-256-GCM under a key derived from the operator's secret
/// (`POSTERN_KEY_SECRET`), bound to the key's kid and kind so that a sealed value moved to another row
/// does not open. Layout: version byte 1, 12-byte random nonce, ciphertext, 16-byte tag.
///
/// The key is scrypt (N = 2^15, r = 8, p = 1: about 32 MiB and a tenth of a second, once at start) of the secret
/// with a random salt that the database keeps for every instance (`server_secrets`): a copy of the database
/// (a `pg_dump`) does not let secrets be guessed at the speed of a hash. A process derives it once for a secret and
/// salt: a runtime built again in the same process (a restart in place, the test suites' hundreds of servers on
/// copies of one database) finds the key it derived before, which a running server holds anyway.
///
/// Other keys kept in the database (DKIM's, Sources/DKIMKeys) are sealed the same way through
/// ``seal(_:binding:name:)`` and ``open(_:binding:name:)``, with a binding of their own.
public struct KeySealer: Sendable {
    /// The shortest operator secret accepted, in bytes.
    public static let minimumSecretLength = 16
    private static let version: UInt8 = 1
    private let key: [UInt8]

    /// - Throws: `KeyStoreError` `.configuration` for a missing or short secret, `.database` when the salt cannot
    ///   be read or made.
    public init(secret: String, database: any SQLDatabase) throws(KeyStoreError) {
        guard secret.utf8.count >= Self.minimumSecretLength else {
            throw KeyStoreError(
                .configuration,
                "POSTERN_KEY_SECRET must be set to at least \(Self.minimumSecretLength) bytes (e.g. openssl rand -hex 32) "
                    + "when the signing keys live in the database")
        }
        let salt: [UInt8]
        do {
            salt = try SharedSecrets(database: database).secret(named: "signing-key-seal-salt") {
                SecureRandom.bytes(16)
            }
        } catch {
            throw KeyStoreError(.database, "the signing keys' salt could not be read or made: \(error)")
        }
        do throws(CryptoError) {
            key = try Self.derived(secret: Array(secret.utf8), salt: salt)
        } catch {
            throw KeyStoreError(.configuration, "deriving the sealing key failed: \(error.reason)")
        }
    }

    /// Keys derived in this process, by the SHA-256 of the secret and the salt.
    private static let derivedKeys = Mutex<[[UInt8]: [UInt8]]>([:])

    private static func derived(secret: [UInt8], salt: [UInt8]) throws(CryptoError) -> [UInt8] {
        let input = SHA256.hash(secret) + salt
        if let key = derivedKeys.withLock({ $0[input] }) { return key }
        let key = try Scrypt.derive(password: secret, salt: salt, n: 1 << 15, r: 8, p: 1, length: 32)
        derivedKeys.withLock { $0[input] = key }
        return key
    }

    func seal(_ material: [UInt8], kid: String, kind: KeyInfo.Kind) throws(KeyStoreError) -> [UInt8] {
        try seal(material, binding: Self.binding(kid, kind), name: "signing key \(kid)")
    }

    func open(_ sealed: [UInt8], kid: String, kind: KeyInfo.Kind) throws(KeyStoreError) -> [UInt8] {
        try open(sealed, binding: Self.binding(kid, kind), name: "signing key \(kid)")
    }

    /// `material` sealed so that it opens only with the same `binding` (the key's identity: a sealed value moved to
    /// another row does not open).
    /// - Parameter name: names the key in errors (never key material).
    public func seal(_ material: [UInt8], binding: [UInt8], name: String) throws(KeyStoreError) -> [UInt8] {
        let nonce = SecureRandom.bytes(AESGCM.nonceByteCount)
        do throws(CryptoError) {
            return [Self.version] + nonce
                + (try AESGCM.seal(material, key: key, nonce: nonce, associatedData: binding))
        } catch {
            throw KeyStoreError(.configuration, "sealing \(name) failed: \(error.reason)")
        }
    }

    /// The material ``seal(_:binding:name:)`` sealed with `binding`.
    /// - Throws: `KeyStoreError` `.corrupt` for an unknown format, `.configuration` when it does not open (another
    ///   secret, another binding, a changed row).
    public func open(_ sealed: [UInt8], binding: [UInt8], name: String) throws(KeyStoreError) -> [UInt8] {
        let header = 1 + AESGCM.nonceByteCount
        guard sealed.count > header, sealed[0] == Self.version else {
            throw KeyStoreError(.corrupt, "\(name) in the database is not sealed in a known format")
        }
        do throws(CryptoError) {
            return try AESGCM.open(
                Array(sealed[header...]), key: key, nonce: Array(sealed[1..<header]), associatedData: binding)
        } catch {
            throw KeyStoreError(
                .configuration,
                "\(name) in the database does not open with POSTERN_KEY_SECRET: the secret differs from "
                    + "the one it was sealed with, or the row was changed")
        }
    }

    private static func binding(_ kid: String, _ kind: KeyInfo.Kind) -> [UInt8] {
        Array("postern signing key \(kind.rawValue) \(kid)".utf8)
    }
}
