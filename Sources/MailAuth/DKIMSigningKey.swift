import Base64Coding
import AuthCrypto
import Foundation

/// One private key a domain signs with, and its selector: RSA (`rsa-sha256`, RFC 6376, at least 2048 bits) or Ed25519
/// (`ed25519-sha256`, RFC 8463). Immutable, so one key may sign from many threads at once.
public struct DKIMSigningKey: Sendable {
    /// The two signing algorithms (RFC 8301 retired `rsa-sha1`).
    public enum Algorithm: String, Sendable, CaseIterable {
        case rsaSHA256 = "rsa-sha256"
        case ed25519SHA256 = "ed25519-sha256"

        /// The key type of the DNS record (`k=`).
        public var keyType: String {
            switch self {
            case .rsaSHA256: return "rsa"
            case .ed25519SHA256: return "ed25519"
            }
        }
    }

    /// The selector (`s=`): the key record lives at `<selector>._domainkey.<domain>`.
    public let selector: String
    /// The algorithm (`a=`).
    public let algorithm: Algorithm
    /// The public key as the record's `p=` value: base64 SubjectPublicKeyInfo for RSA, base64 of the 32 raw bytes for
    /// Ed25519 (RFC 8463 section 4).
    public let publicKeyBase64: String
    /// Signs the header hash input.
    private let signInput: @Sendable ([UInt8]) throws(CryptoError) -> [UInt8]

    /// An RSA key: PKCS#1 v1.5 over SHA-256 of the header hash input.
    public init(selector: String, rsa key: RSAPrivateKey) {
        let body = key.publicKey.pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        self.init(selector: selector, algorithm: .rsaSHA256, publicKeyBase64: body) {
            (input: [UInt8]) throws(CryptoError) -> [UInt8] in try key.signSHA256(input)
        }
    }

    /// An Ed25519 key: pure Ed25519 over the SHA-256 hash of the header hash input (RFC 8463 section 3).
    public init(selector: String, ed25519 key: Ed25519PrivateKey) {
        self.init(
            selector: selector, algorithm: .ed25519SHA256,
            publicKeyBase64: Base64.encode(key.publicKey.rawRepresentation)
        ) { (input: [UInt8]) throws(CryptoError) -> [UInt8] in try key.sign(SHA256.hash(input)) }
    }

    /// A key whose signing is `sign` (tests: the RFC 8463 example's 1024-bit RSA key, which ``RSAPrivateKey``
    /// refuses to load).
    init(
        selector: String, algorithm: Algorithm, publicKeyBase64: String,
        sign: @escaping @Sendable ([UInt8]) throws(CryptoError) -> [UInt8]
    ) {
        self.selector = selector
        self.algorithm = algorithm
        self.publicKeyBase64 = publicKeyBase64
        signInput = sign
    }

    /// The signature of `input` (the header hash input, RFC 6376 section 3.7).
    func sign(_ input: [UInt8]) throws(CryptoError) -> [UInt8] {
        try signInput(input)
    }

    /// The DNS TXT record's value: `v=DKIM1; k=rsa; p=...` or `v=DKIM1; k=ed25519; p=...`.
    public var txtRecordValue: String {
        "v=DKIM1; k=\(algorithm.keyType); p=\(publicKeyBase64)"
    }

    /// The DNS name of the key record for `domain`: `<selector>._domainkey.<domain>`.
    public func txtRecordName(domain: String) -> String {
        "\(selector)._domainkey.\(domain)"
    }
}
