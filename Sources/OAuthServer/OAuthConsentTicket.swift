import AuthCrypto

/// The consent form's copy of the authorization request: the query, bound to the owner who saw the page and to an
/// expiry by an HMAC-SHA256 under a key every instance shares. The consent POST trusts nothing else it carries and
/// checks the query again in full.
///
/// Form: `base64url(query) "." expiry "." base64url(mac)`.
enum OAuthConsentTicket {
    static func seal(query: String, ownerID: String, expires: Int64, key: [UInt8]) -> String {
        Base64URL.encode(Array(query.utf8)) + "." + String(expires) + "."
            + Base64URL.encode(mac(query: query, ownerID: ownerID, expires: expires, key: key))
    }

    /// The query of `ticket` when its MAC holds for `ownerID` and it has not expired.
    static func open(_ ticket: String, ownerID: String, now: Int64, key: [UInt8]) -> String? {
        let parts = ticket.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let query = unverifiedQuery(ticket), let expires = Int64(parts[1]), expires > now,
            let tag = Base64URL.decode(String(parts[2])),
            constantTimeEquals(tag, mac(query: query, ownerID: ownerID, expires: expires, key: key))
        else { return nil }
        return query
    }

    /// The query of `ticket`, unchecked: only for sending a signed-out browser back to `/oauth/authorize`, which
    /// checks it again.
    static func unverifiedQuery(_ ticket: String) -> String? {
        guard let first = ticket.split(separator: ".", omittingEmptySubsequences: false).first,
            let bytes = Base64URL.decode(String(first))
        else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func mac(query: String, ownerID: String, expires: Int64, key: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(
            key: key, message: Array("postern-oauth-consent\n\(ownerID)\n\(expires)\n\(query)".utf8))
    }
}
