import AuthCrypto

/// The webhook signature scheme (Mail.td's, after mail.cx's documentation): `X-Webhook-Signature: sha256=` + the
/// lower-case hex HMAC-SHA256, keyed with the secret string exactly as shown (its `whsec_` prefix included), of the
/// decimal timestamp, a `.`, and the raw body.
public enum WebhookSignature {
    /// The `X-Webhook-Signature` value for `body` sent at `timestamp` (Unix seconds).
    public static func header(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        let signed = Array("\(timestamp).".utf8) + body
        return "sha256=" + Hex.encode(HMACSHA256.authenticationCode(key: Array(secret.utf8), message: signed))
    }

    /// A new secret: `whsec_` + 32 random bytes in hex.
    static func newSecret() -> String {
        "whsec_" + SecureRandom.hex(byteCount: 32)
    }
}
