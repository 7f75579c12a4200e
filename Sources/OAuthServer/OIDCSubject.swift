import AuthCrypto
import OAuthGrants

/// The `sub` a relying party knows an owner by (OpenID Connect Core 1.0 section 8): the owner's id for a `public`
/// party; for a `pairwise` one, base64url (no padding, 43 characters) of HMAC-SHA256 under the server's pairwise key
/// of the sector identifier, one zero byte, and the owner's id (section 8.1 asks for a digest of the sector and the
/// local account id with a secret). Pure: the key is the database's (`server_secrets`, one for every instance), so
/// the subject is the same at every sign-in and on every instance, in the ID token, the access token, userinfo,
/// introspection and logout tokens. The zero byte keeps (sector, id) pairs apart: no host contains one.
enum OIDCSubject {
    /// The name of the pairwise key in `server_secrets`.
    static let keyName = "oidc.pairwise-subjects"

    /// The subject `party` knows `ownerID` by.
    static func subject(ownerID: String, party: OIDCRelyingParty, key: [UInt8]) -> String {
        switch party.subjectType {
        case .public: ownerID
        case .pairwise(let sector): pairwise(sector: sector, ownerID: ownerID, key: key)
        }
    }

    /// The pairwise subject of `ownerID` in `sector`.
    static func pairwise(sector: String, ownerID: String, key: [UInt8]) -> String {
        Base64URL.encode(HMACSHA256.authenticationCode(key: key, message: Array(sector.utf8) + [0] + Array(ownerID.utf8)))
    }
}
