import AuthCrypto
import ComputePool
import HTTP1
import JSON
import OAuthGrants

extension OAuthService {
    /// `grant_type=refresh_token` for a relying party with mail access (Roundcube refreshes the token it reads IMAP
    /// with): the refresh token of one of its ``OIDCMailGrant``s, rotated (the presented one superseded, a new one
    /// returned), and a new access token for the mail resource. A token presented again after its rotation, past the
    /// race window, revokes the grant; within it, the request lost a race and nothing is revoked. No ID token is
    /// returned (OpenID Connect Core 12.2 lets a refresh omit it). Any other confidential client is refused as before.
    func refreshOpenID(_ fields: [String: String], _ client: OAuthConfidentialClient) async throws -> HTTPResponse {
        guard let provider = openID, let party = try await provider.parties.party(id: client.clientID),
            party.mailAccess != nil
        else { throw OAuthError.unauthorizedClient("A confidential client takes tokens with client_credentials only.") }
        guard let token = fields["refresh_token"], !token.isEmpty else {
            throw OAuthError.invalidRequest("refresh_token is required.")
        }
        if let resource = fields["resource"], resource != mailResource {
            throw OAuthError.invalidTarget("resource differs from the one authorized.")
        }
        let now = clock()
        let grant: OIDCMailGrant
        let sawSuperseded: Bool
        switch try await provider.signIns.checkRefresh(token, clientID: party.clientID, now: now) {
        case .refused(let reason): throw OAuthError.invalidGrant(reason)
        case .ready(let ready): (grant, sawSuperseded) = (ready, false)
        case .superseded(let superseded): (grant, sawSuperseded) = (superseded, true)
        }
        if let scope = fields["scope"], !scope.isEmpty,
            !Set(scope.split(separator: " ").map(String.init)).isSubset(of: grant.scopes)
        {
            throw OAuthError.invalidScope("scope is wider than the sign-in's (\(grant.scopes.joined(separator: " "))).")
        }
        let issue = mailIssue(grant, jti: SecureRandom.identifier(byteCount: 16), now: now)
        let (keys, issuer) = (keys, configuration.issuer)
        let accessToken = try await pool.run(.signing) { () throws -> String in
            try keys.sign(
                OAuthAccessClaims(
                    ownerID: grant.ownerID, clientID: grant.clientID, resource: grant.resource,
                    permissions: grant.permissions, jti: issue.jti
                ).claims(issuer: issuer, issuedAt: now, ttl: issue.accessExpiresAt - now),
                for: OAuthAccessClaims.purpose)
        }
        try counted(
            try await provider.signIns.rotate(
                token, grant: grant, issue: issue, sawSuperseded: sawSuperseded, now: now,
                raceWindow: configuration.refreshRaceWindow))
        return OAuthJSON.response(
            .ok,
            .object([
                ("access_token", .string(accessToken)), ("token_type", .string("Bearer")),
                ("expires_in", .int(issue.accessExpiresAt - now)), ("refresh_token", .string(issue.refreshToken)),
                ("scope", .string(grant.scopes.joined(separator: " "))),
            ]))
    }
}
