import AuthCrypto
import JWT

/// `JWT_PRIVATE_KEY` and `JWT_PUBLIC_KEY`: the RSA key an operator passes in, which signs RS256 in place
/// of a generated one (kid = its RFC 7638 thumbprint) and is never stored.
enum EnvironmentKey {
    /// The key the two variables give, or nil when neither is set.
    /// - Throws: `KeyStoreError` `.configuration` for unusable PEM, a public key alone, or a pair that does not match.
    static func parse(private privateText: String?, public publicText: String?) throws(KeyStoreError)
        -> JWTKey?
    {
        let privatePEM = privateText.map(unescapeNewlines).flatMap { $0.isEmpty ? nil : $0 }
        let publicPEM = publicText.map(unescapeNewlines).flatMap { $0.isEmpty ? nil : $0 }
        guard let privatePEM else {
            if publicPEM != nil {
                throw KeyStoreError(.configuration, "JWT_PUBLIC_KEY is set without JWT_PRIVATE_KEY")
            }
            return nil
        }
        let privateKey = try usable("JWT_PRIVATE_KEY", "RSA private key") { () throws(CryptoError) in
            try RSAPrivateKey(pem: privatePEM)
        }
        if let publicPEM {
            let publicKey = try usable("JWT_PUBLIC_KEY", "RSA public key") { () throws(CryptoError) in
                try RSAPublicKey(pem: publicPEM)
            }
            guard publicKey.modulus == privateKey.publicKey.modulus,
                publicKey.exponent == privateKey.publicKey.exponent
            else { throw KeyStoreError(.configuration, "JWT_PUBLIC_KEY does not match JWT_PRIVATE_KEY") }
        }
        do throws(JWTError) {
            return try JWTKey.rsa(kid: JWK.thumbprint(of: privateKey.publicKey), privateKey: privateKey)
        } catch {
            throw KeyStoreError(.configuration, "JWT_PRIVATE_KEY: \(error.reason)")
        }
    }

    /// The key `make` reads from variable `name`'s PEM.
    /// - Throws: `KeyStoreError` `.configuration` naming the variable, what it should hold (`what`) and the crypto
    ///   error's code, when `make` fails.
    private static func usable<Key>(_ name: String, _ what: String, _ make: () throws(CryptoError) -> Key)
        throws(KeyStoreError) -> Key
    {
        do throws(CryptoError) {
            return try make()
        } catch {
            throw KeyStoreError(.configuration, "\(name) is not a usable \(what) (\(error.code.rawValue))")
        }
    }

    /// Environment variables often carry PEM on one line with literal `\n`; turn those into newlines.
    static func unescapeNewlines(_ text: String) -> String {
        text.replacing("\\n", with: "\n").trimmingWhitespace()
    }
}
