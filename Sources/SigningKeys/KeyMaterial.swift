import AuthCrypto
import JWT

/// A stored key's material made a `JWTKey`: the same checks wherever the key was kept.
enum KeyMaterial {
    /// The key `kid` names, from an HMAC secret's bytes or an RSA private key's PEM.
    /// - Parameter origin: names where the material came from in errors (a file, a row).
    /// - Throws: `KeyStoreError` `.corrupt` for material that is not a usable key of its kind, or an RSA key
    ///   whose thumbprint is not its kid.
    static func key(kid: String, kind: KeyInfo.Kind, material: [UInt8], origin: String) throws(KeyStoreError) -> JWTKey
    {
        do {
            switch kind {
            case .hmac:
                return try JWTKey.hmac(kid: kid, secret: material)
            case .rsa:
                let key = try RSAPrivateKey(pem: String(decoding: material, as: UTF8.self))
                guard JWK.thumbprint(of: key.publicKey) == kid else {
                    throw KeyStoreError(.corrupt, "\(origin) does not hold the key its kid names")
                }
                return try JWTKey.rsa(kid: kid, privateKey: key)
            }
        } catch let error as KeyStoreError {
            throw error
        } catch {
            throw KeyStoreError(.corrupt, "\(origin) is not a usable key")
        }
    }
}
