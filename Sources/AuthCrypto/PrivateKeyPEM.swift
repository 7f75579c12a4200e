import COpenSSL

/// A private key read from and written as unencrypted PKCS#8 PEM (``RSAPrivateKey``, ``Ed25519PrivateKey``,
/// ``P256PrivateKey``): how the data directory's and the database's key rings keep their keys.
public protocol PrivateKeyPEM: Sendable {
    /// Loads an unencrypted private key from PEM (`BEGIN PRIVATE KEY`, as ``pkcs8PEM`` and `openssl genpkey` write it;
    /// an RSA key may also be PKCS#1, `BEGIN RSA PRIVATE KEY`).
    /// - Throws: `CryptoError` `.invalidKey` for unreadable or encrypted PEM, `.unsupportedKey` for a key of another
    ///   type (or curve, or an RSA key outside 2048 to 8192 bits).
    init(pem: String) throws(CryptoError)

    /// The key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`).
    ///
    /// - Warning: this is the secret key. Write it only to a file with mode 0600 or sealed; never log it.
    var pkcs8PEM: String { get throws(CryptoError) }
}

/// A key that signs a message it reads in place (``Ed25519PrivateKey``, ``P256PrivateKey``); signing an array is
/// written once, on top.
public protocol MessageSigningKey: Sendable {
    /// The signature of `message` (the key's JWS algorithm), read without copying it.
    /// - Throws: `CryptoError` `.signingFailed`.
    func sign(_ message: UnsafeBufferPointer<UInt8>) throws(CryptoError) -> [UInt8]
}

extension MessageSigningKey {
    /// The signature of `message` (the key's JWS algorithm).
    /// - Throws: `CryptoError` `.signingFailed`.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try message.withNonNullPointer { pointer, count throws(CryptoError) in
            try sign(UnsafeBufferPointer(start: pointer, count: count))
        }
    }
}

/// A private key held by OpenSSL (``EVPKey``), made from one after the kind's own checks: the PEM round trip and
/// key generation are written once for every kind.
protocol EVPPrivateKey: PrivateKeyPEM {
    /// OpenSSL's key.
    var key: EVPKey { get }
    /// The key of `key`, once it is checked to be of this kind.
    /// - Throws: `CryptoError` `.unsupportedKey` for a key of another kind.
    init(key: EVPKey) throws(CryptoError)
}

extension EVPPrivateKey {
    public init(pem: String) throws(CryptoError) {
        try self.init(key: EVPKey.readPrivateKey(pem: pem))
    }

    public var pkcs8PEM: String {
        get throws(CryptoError) { try key.privateKeyPKCS8PEM() }
    }

    /// A new key of OpenSSL's algorithm `algorithm` from its random generator, its parameters set by `parameters`
    /// (false when OpenSSL refused one); `kind` names it in errors.
    /// - Throws: `CryptoError` `.keyGenerationFailed`.
    static func generated(
        _ algorithm: String, kind: String, parameters: (_ context: OpaquePointer) -> Bool = { _ in true }
    ) throws(CryptoError) -> Self {
        let context = try KeyContext(name: algorithm)
        guard EVP_PKEY_keygen_init(context.pointer) == 1, parameters(context.pointer) else {
            throw openSSLError(.keyGenerationFailed, "\(kind) key generation setup")
        }
        var generated: OpaquePointer?
        guard EVP_PKEY_generate(context.pointer, &generated) == 1, let generated else {
            throw openSSLError(.keyGenerationFailed, "\(kind) key generation")
        }
        return try Self(key: EVPKey(taking: generated))
    }
}
