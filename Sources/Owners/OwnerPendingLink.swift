import AuthCrypto

/// An identity waiting for an owner's password before it is linked to them (``OwnerProviderLinking`` step 4), carried
/// from the provider's callback to the link page in the ``OwnerProviderPages/pendingCookie``, sealed (AES-256-GCM
/// under a key derived from the shared CSRF key) with a ten-minute expiry: the browser cannot read or change it, and
/// nothing is stored on the server. It opens nothing by itself: the link needs the owner's password.
struct OwnerPendingLink: Equatable {
    /// Seconds the link page may wait for the password.
    static let lifetime: Int64 = 600

    /// The provider's name.
    var provider: String
    /// The identity.
    var issuer: String
    var subject: String
    /// The provider's verified email, which is the owner's.
    var email: String
    /// The owner whose password is asked.
    var ownerID: String

    /// The cookie value (``OwnerSealedCookie``).
    func seal(browserKey: [UInt8], now: Int64) throws -> String {
        try OwnerSealedCookie.seal(
            Array([provider, issuer, subject, email, ownerID].joined(separator: "\n").utf8), browserKey: browserKey,
            purpose: "owner pending link", binding: Array("pending-link|".utf8), now: now, lifetime: Self.lifetime)
    }

    /// The pending link a cookie value carries when it is intact and unexpired; else nil.
    init?(cookie: String, browserKey: [UInt8], now: Int64) {
        guard
            let plain = OwnerSealedCookie.open(
                cookie, browserKey: browserKey, purpose: "owner pending link", binding: Array("pending-link|".utf8),
                now: now, lifetime: Self.lifetime),
            case let parts = String(decoding: plain, as: UTF8.self)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
            parts.count == 5
        else { return nil }
        self.init(provider: parts[0], issuer: parts[1], subject: parts[2], email: parts[3], ownerID: parts[4])
    }

    init(provider: String, issuer: String, subject: String, email: String, ownerID: String) {
        self.provider = provider
        self.issuer = issuer
        self.subject = subject
        self.email = email
        self.ownerID = ownerID
    }
}
