import AuthCrypto
import JWT

/// A stored key's material made a `JWTKey`: the same checks wherever the key was kept.
enum KeyMaterial {
    /// The key `kid` names, from an HMAC secret's bytes or an RSA, Ed25519 or P-256 private key's PEM.
    /// - Parameter origin: names where the material came from in errors (a file, a row).
    /// - Throws: `KeyStoreError` `.corrupt` for material that is not a usable key of its kind, or an RSA or
    ///   Ed25519 or P-256 key whose thumbprint is not its kid.
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
            case .ed25519:
                let key = try Ed25519PrivateKey(pem: String(decoding: material, as: UTF8.self))
                guard JWK.thumbprint(of: key.publicKey) == kid else {
                    throw KeyStoreError(.corrupt, "\(origin) does not hold the key its kid names")
                }
                return try JWTKey.ed25519(kid: kid, privateKey: key)
            case .p256:
                let key = try P256PrivateKey(pem: String(decoding: material, as: UTF8.self))
                guard JWK.thumbprint(of: key.publicKey) == kid else {
                    throw KeyStoreError(.corrupt, "\(origin) does not hold the key its kid names")
                }
                return try JWTKey.p256(kid: kid, privateKey: key)
            }
        } catch let error as KeyStoreError {
            throw error
        } catch {
            throw KeyStoreError(.corrupt, "\(origin) is not a usable key")
        }
    }

    /// A new key of `kind`: an HMAC kid (16 hex characters) with a 32-byte random secret, or an RSA-2048, Ed25519 or
    /// P-256 key whose kid is its RFC 7638 thumbprint, with its private key as PKCS#8 PEM.
    /// - Throws: `KeyStoreError` `.io` when OpenSSL cannot make the key.
    static func generate(_ kind: KeyInfo.Kind) throws(KeyStoreError) -> (kid: String, material: [UInt8]) {
        switch kind {
        case .hmac:
            return (SecureRandom.hex(byteCount: 8), SecureRandom.bytes(32))
        case .rsa:
            do throws(CryptoError) {
                let key = try RSAPrivateKey.generate(bits: 2048)
                return (JWK.thumbprint(of: key.publicKey), Array(try key.pkcs8PEM.utf8))
            } catch {
                throw KeyStoreError(.io, "generating an RSA key failed: \(error.reason)")
            }
        case .ed25519:
            do throws(CryptoError) {
                let key = try Ed25519PrivateKey.generate()
                return (JWK.thumbprint(of: key.publicKey), Array(try key.pkcs8PEM.utf8))
            } catch {
                throw KeyStoreError(.io, "generating an Ed25519 key failed: \(error.reason)")
            }
        case .p256:
            do throws(CryptoError) {
                let key = try P256PrivateKey.generate()
                return (JWK.thumbprint(of: key.publicKey), Array(try key.pkcs8PEM.utf8))
            } catch {
                throw KeyStoreError(.io, "generating a P-256 key failed: \(error.reason)")
            }
        }
    }
}
