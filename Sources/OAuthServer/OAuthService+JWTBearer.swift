import Audit
import AuthCrypto
import Directory
import HTTP1
import JWT
import OAuthGrants

extension OAuthService {
    /// An identity assertion verified, and the owner it names.
    struct AssertedOwner: Sendable {
        let assertion: OAuthIdentityAssertion.Verified
        let ownerID: String
    }

    /// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` (RFC 7523 section 2.1) with an identity assertion
    /// (ID-JAG, `typ: oauth-id-jag+jwt`) as `assertion`, for `client`, the client it names in `client_id`: an
    /// access token for the owner who signs in with the asserted identity (no `act`: the client holds it for them),
    /// its scope the assertion's or narrower (`scope`), its audience the assertion's `resource` or, without one, the
    /// `resource` asked for. The owner must have allowed the client on `/owner/actors`; taking that leave away ends
    /// the token. Errors: an assertion refused for any reason, or an identity no owner signs in with: `invalid_grant`;
    /// an actor not allowed: `unauthorized_client`; a wider scope: `invalid_scope`; another audience:
    /// `invalid_target`.
    func jwtBearer(_ fields: [String: String], _ client: OAuthConfidentialClient, from address: String?)
        async throws -> HTTPResponse
    {
        guard let assertion = Self.nonEmpty(fields["assertion"]) else {
            throw OAuthError.invalidRequest("assertion is required.")
        }
        let now = clock()
        let asserted = try await identityAssertion(assertion, client, now: now, refusal: OAuthError.invalidGrant)
        let subject = OAuthTokenExchangeRules.Subject(
            ownerID: asserted.ownerID, permissions: asserted.assertion.permissions ?? .all,
            resource: asserted.assertion.resource, expiresAt: asserted.assertion.expiresAt)
        // The assertion is a credential, not a token the new one descends from: the depth and expiry it implies do
        // not bind (the token lives an access token's lifetime and carries no act).
        let decision = try await decide(subject, fields, client, maximumDepth: 1, grant: Self.jwtBearerGrant, now: now)
        let jti = SecureRandom.identifier(byteCount: 16)
        let minted = try await mintDelegated(
            OAuthDelegatedToken(
                jti: jti, grantID: jti, parentJTI: nil, ownerID: asserted.ownerID, clientID: client.clientID,
                act: nil,
                permissions: decision.permissions, resource: decision.resource, agentID: nil, boundAccountID: nil,
                inboxIDs: decision.inboxIDs, expiresAt: now + configuration.accessTokenLifetime),
            now: now)
        metrics.jwtBearerGrants.increment()
        await audit.record {
            AuditEvent(
                time: $0, actorKind: .app, actorID: client.clientID, ownerID: asserted.ownerID,
                action: .identityAssertionGranted, target: jti, clientAddress: address,
                details: AuditDetails.json([
                    "scope": decision.permissions.scope, "resource": decision.resource,
                    "issuer": asserted.assertion.issuer,
                ]))
        }
        return minted
    }

    /// Verifies `assertion` as an ID-JAG presented by `client`: from a sign-in provider the operator trusts (its
    /// keys fetched again once for an unknown `kid`), for this server and this client, its `jti` unused (recorded
    /// until it expires, on every instance), naming an identity an owner signs in with.
    /// - Parameter refusal: the error every refusal is (`invalid_grant` for the JWT bearer grant, `invalid_request`
    ///   for a subject token).
    func identityAssertion(
        _ assertion: String, _ client: OAuthConfidentialClient, now: Int64, refusal: (String) -> OAuthError
    ) async throws -> AssertedOwner {
        guard let issuers = identityIssuers, let issuer = OAuthIdentityAssertion.claimedIssuer(assertion),
            var keys = await issuers.keys(issuer: issuer, refresh: false)
        else { throw refusal("The assertion's issuer is not a sign-in provider this server trusts.") }
        func check(_ keys: PublishedKeySet) throws(JWTError) -> OAuthIdentityAssertion.Verified {
            try OAuthIdentityAssertion.verify(
                assertion, keys: keys, issuer: issuer, audience: configuration.issuer, clientID: client.clientID,
                now: now, maxLifetime: configuration.assertionMaxLifetime)
        }
        var result = Result { () throws(JWTError) in try check(keys) }
        if case .failure(let error) = result, error.code == .unknownKey,
            let fresh = await issuers.keys(issuer: issuer, refresh: true)
        {
            keys = fresh
            result = Result { () throws(JWTError) in try check(keys) }
        }
        let verified: OAuthIdentityAssertion.Verified
        switch result {
        case .success(let value): verified = value
        case .failure(let error): throw refusal(Self.identityAssertionRefusal(error))
        }
        guard
            try await confidentialClients.recordAssertion(
                clientID: "id-jag " + issuer, jti: verified.jti, expiresAt: verified.expiresAt, now: now)
        else {
            metrics.identityAssertionReplays.increment()
            throw refusal("The assertion was already used (jti).")
        }
        guard let owner = try await issuers.owner(issuer: issuer, subject: verified.subject) else {
            throw refusal("No owner signs in with the asserted identity.")
        }
        return AssertedOwner(assertion: verified, ownerID: owner)
    }

    /// What an identity assertion refused for `error` is told: the check that failed, never a key or a claim's value.
    static func identityAssertionRefusal(_ error: JWTError) -> String {
        switch error.code {
        case .unknownKey: "The assertion's kid names none of its issuer's keys."
        case .badSignature, .algorithmMismatch, .unsupportedAlgorithm: "The assertion's signature does not verify."
        case .malformed: "The assertion is not an identity assertion (typ oauth-id-jag+jwt) this server reads."
        case .wrongIssuer: "The assertion's iss is not its provider's issuer."
        case .wrongAudience: "The assertion's aud must be this server's issuer."
        case .wrongAuthorizedParty: "The assertion's client_id is not the client presenting it."
        case .expired: "The assertion has expired."
        case .lifetimeTooLong: "The assertion's exp is too far ahead."
        case .notYetValid: "The assertion is not valid yet."
        case .wrongScope: "The assertion's scope names other permissions than mail.read and mail.send."
        case .missingClaim: "The assertion lacks a required claim (sub, aud, exp or jti)."
        default: "The assertion does not verify."
        }
    }
}
