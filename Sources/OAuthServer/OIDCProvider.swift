import AuthCrypto
import Fetch
import HTTP1
import OAuthGrants
import Owners
import Storage

/// Where logout tokens go (OpenID Back-Channel Logout 1.0 section 2.5): `Fetch.Fetcher` is the real one, with the
/// outbound address policy (only the hosts `POSTERN_OAUTH_CIMD_ALLOW_HOSTS` names may be private: tests on loopback).
public protocol OIDCLogoutDelivering: Sendable {
    /// POSTs `logout_token=<token>` to `uri`; whether it answered 200 or 204.
    func deliverLogout(token: String, to uri: String) async -> Bool
}

extension Fetcher: OIDCLogoutDelivering {
    /// POSTs the form with this fetcher's policy; the body of the answer is not read.
    public func deliverLogout(token: String, to uri: String) async -> Bool {
        let body = Array(("logout_token=" + PercentEncoding.encode(token)).utf8)
        guard
            let response = try? await post(
                uri, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: body, readingBody: false,
                startWithin: .seconds(5))
        else { return false }
        return response.status == 200 || response.status == 204
    }
}

/// What the authorization server needs to be an OpenID Provider (issue 88): the relying parties, their sign-ins, the
/// owners (the claims), and the logout deliverer.
struct OIDCProvider: Sendable {
    let parties: OIDCRelyingParties
    let signIns: OIDCSignIns
    let owners: OwnerStore
    let logout: (any OIDCLogoutDelivering)?
    /// The key of pairwise subjects (``OIDCSubject``): 32 random bytes the database keeps for every instance.
    let pairwiseKey: [UInt8]

    /// - Parameter grants: the grant store, whose revocation observer hears of the mail grants the sign-ins revoke.
    /// - Throws: storage errors reading or making the pairwise key.
    init(
        database: any SQLDatabase, grants: OAuthGrantStore, owners: OwnerStore, logout: (any OIDCLogoutDelivering)?
    ) throws {
        parties = OIDCRelyingParties(database: database)
        signIns = grants.openIDSignIns
        self.owners = owners
        self.logout = logout
        pairwiseKey = try SharedSecrets(database: database).secret(named: OIDCSubject.keyName) {
            SecureRandom.bytes(32)
        }
    }

    /// The subject `party` knows `ownerID` by.
    func subject(_ ownerID: String, for party: OIDCRelyingParty) -> String {
        OIDCSubject.subject(ownerID: ownerID, party: party, key: pairwiseKey)
    }

    /// Lifetime of an ID token, seconds.
    static let idTokenLifetime: Int64 = 300
    /// The event a logout token carries.
    static let logoutEvent = "http://schemas.openid.net/event/backchannel-logout"
}
