import AuthCrypto

/// The signature in an HTML part's inline-image URLs. The frame that shows the part is sandboxed into an opaque
/// origin, so its image requests carry no session cookie (`SameSite=Strict`): the URL itself proves that a reader of
/// that message was shown it. It is an HMAC-SHA256, under a key every instance shares, of the mailbox, the message
/// and an expiry, so it opens that message's inline images only, for a while.
struct InlineImageSignature: Sendable {
    let key: [UInt8]

    /// `<expiry>.<mac>` for the images of message `id` of `mailbox`, valid until `expires`.
    func sign(mailbox: String, id: String, expires: Int64) -> String {
        "\(expires)." + mac(mailbox: mailbox, id: id, expires: expires)
    }

    /// Whether `signature` is one of ours for that message and unexpired at `now` (constant-time comparison).
    func verify(_ signature: String, mailbox: String, id: String, now: Int64) -> Bool {
        let parts = signature.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let expires = Int64(parts[0]), expires > now else { return false }
        return constantTimeEquals(
            Array(parts[1].utf8), Array(mac(mailbox: mailbox, id: id, expires: expires).utf8))
    }

    private func mac(mailbox: String, id: String, expires: Int64) -> String {
        Base64URL.encode(
            HMACSHA256.authenticationCode(key: key, message: Array("cid|\(mailbox)|\(id)|\(expires)".utf8)))
    }
}
