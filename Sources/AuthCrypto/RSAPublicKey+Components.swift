import COpenSSL

extension RSAPublicKey {
    /// Loads a public key from its modulus and exponent (a JWK's decoded `n` and `e`, RFC 7518 section 6.3.1).
    /// - Parameters:
    ///   - modulus: big-endian; leading zero bytes are ignored.
    ///   - exponent: big-endian, 1 to 8 bytes.
    /// - Throws: `CryptoError` `.invalidKey` for an empty modulus, an exponent of more than 8 bytes or values OpenSSL
    ///   refuses; `.unsupportedKey` for fewer than 2048 or more than 8192 bits.
    public convenience init(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) {
        guard !modulus.isEmpty, modulus.count <= RSAPrivateKey.maximumBits / 8 + 1, (1...8).contains(exponent.count)
        else { throw CryptoError(.invalidKey, "an RSA modulus of up to 8192 bits and an exponent of 1 to 8 bytes") }
        try self.init(
            derivedFrom: EVPKey.fromData(algorithm: "RSA", [("n", .unsigned(modulus)), ("e", .unsigned(exponent))]))
    }
}
