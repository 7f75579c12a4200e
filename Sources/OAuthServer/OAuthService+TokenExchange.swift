import Audit
import AuthCrypto
import Directory
import HTTP1
import JSON
import JWT
import OAuthGrants

extension OAuthService {
    /// `grant_type` of token exchange (RFC 8693).
    static let tokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
    /// `grant_type` of the JWT bearer grant (RFC 7523 section 2.1).
    static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The token type of an access token (RFC 8693 section 3): a subject token's, and every issued one's.
    static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"
    /// The token type of a JWT: an `actor_token` that is the actor's own client assertion.
    static let jwtTokenType = "urn:ietf:params:oauth:token-type:jwt"

    /// The delegation grant types `configuration` serves, in the order the metadata lists them: token exchange when
    /// on, the JWT bearer grant when on and some sign-in provider is trusted to assert identities.
    static func delegationGrantTypes(_ configuration: OAuthConfiguration, identityIssuers: Bool) -> [String] {
        (configuration.tokenExchange ? [tokenExchangeGrant] : [])
            + (configuration.jwtBearer && identityIssuers ? [jwtBearerGrant] : [])
    }

    /// The delegation grant types served.
    var delegationGrantTypes: [String] {
        Self.delegationGrantTypes(configuration, identityIssuers: identityIssuers != nil)
    }

    /// Token exchange or the JWT bearer grant, for an agent client: a confidential client (the operator's, or an
    /// owner's agent client); a registered app is `unauthorized_client`.
    func delegation(
        _ grant: String, _ fields: [String: String], _ authenticated: OAuthAuthenticatedClient, from address: String?
    ) async throws -> HTTPResponse {
        guard case .confidential(let client) = authenticated else {
            throw OAuthError.unauthorizedClient("Only an agent client (a confidential client) may act for an owner.")
        }
        if grant == Self.jwtBearerGrant { return try await jwtBearer(fields, client, from: address) }
        return try await tokenExchange(fields, client, from: address)
    }

    // MARK: - Token exchange

    /// What a subject token is, and what a token minted from it dies with.
    struct ExchangeSubject: Sendable {
        let rules: OAuthTokenExchangeRules.Subject
        /// The owner's grant it descends from; nil for an identity assertion (the new token is its own root).
        let grantID: String?
        /// Its `jti`, when it is an access token.
        let jti: String?
        let agentID: String?
        let boundAccountID: String?
    }

    /// `grant_type=urn:ietf:params:oauth:grant-type:token-exchange` (RFC 8693) for `client`, the actor: the
    /// `subject_token` is an owner's access token of this server (`subject_token_type` access_token, itself perhaps
    /// exchanged already) or an identity assertion (`…:token-type:id-jag`, when the JWT bearer grant is on); an
    /// `actor_token`, when given, must be the client's own `private_key_jwt` assertion. The rules of
    /// ``OAuthTokenExchangeRules`` decide what the new token carries; it is written under the subject's grant before
    /// it is handed out, so that revoking that grant (or the owner taking the actor's leave away) ends it on every
    /// instance, and one audit line records it. No refresh token: the actor exchanges again.
    ///
    /// Errors (RFC 8693 section 2.2.2): an invalid, expired, revoked or unacceptable subject or actor token,
    /// `may_act` naming another party, `act` past the depth limit: `invalid_request`; an actor the owner did not allow:
    /// `unauthorized_client`; a wider scope: `invalid_scope`; another audience: `invalid_target`.
    func tokenExchange(_ fields: [String: String], _ client: OAuthConfidentialClient, from address: String?)
        async throws -> HTTPResponse
    {
        if let wanted = Self.nonEmpty(fields["requested_token_type"]), wanted != Self.accessTokenType {
            throw OAuthError.invalidRequest("requested_token_type may only be \(Self.accessTokenType).")
        }
        let now = clock()
        try await checkActorToken(fields, client, now: now)
        guard let token = Self.nonEmpty(fields["subject_token"]) else {
            throw OAuthError.invalidRequest("subject_token is required.")
        }
        let subjectType = fields["subject_token_type"]
        let subject: ExchangeSubject
        switch subjectType {
        case Self.accessTokenType?: subject = try await accessTokenSubject(token, now: now)
        case OAuthIdentityAssertion.tokenType? where identityIssuers != nil && configuration.jwtBearer:
            let verified = try await identityAssertion(token, client, now: now, refusal: OAuthError.invalidRequest)
            subject = ExchangeSubject(
                rules: .init(
                    ownerID: verified.ownerID, permissions: verified.assertion.permissions ?? .all,
                    resource: verified.assertion.resource, expiresAt: verified.assertion.expiresAt,
                    mayAct: verified.assertion.mayAct),
                grantID: nil, jti: nil, agentID: nil, boundAccountID: nil)
        case nil, ""?: throw OAuthError.invalidRequest("subject_token_type is required.")
        default: throw OAuthError.invalidRequest("subject_token_type must be \(Self.accessTokenType).")
        }
        let decision = try await decide(
            subject.rules, fields, client, maximumDepth: configuration.tokenExchangeMaxDepth,
            grant: Self.tokenExchangeGrant, now: now)
        let jti = SecureRandom.identifier(byteCount: 16)
        let minted = try await mintDelegated(
            OAuthDelegatedToken(
                jti: jti, grantID: subject.grantID ?? jti, parentJTI: subject.jti, ownerID: subject.rules.ownerID,
                clientID: client.clientID,
                act: decision.act, permissions: decision.permissions, resource: decision.resource,
                agentID: subject.agentID, boundAccountID: subject.boundAccountID, inboxIDs: decision.inboxIDs,
                expiresAt: decision.expiresAt),
            now: now)
        metrics.tokenExchanges.increment()
        await audit.record {
            AuditEvent(
                time: $0, actorKind: .app, actorID: client.clientID, ownerID: subject.rules.ownerID,
                action: .tokenExchanged, target: jti, clientAddress: address,
                details: AuditDetails.json([
                    "scope": decision.permissions.scope, "resource": decision.resource,
                    "act": decision.act.stored, "subject_token_type": subjectType ?? "",
                ]))
        }
        return minted
    }

    /// The subject an access token of this server is: live (its grant unrevoked, unexpired, agreeing with it) and an
    /// owner's (not a client's own client credentials token).
    /// - Throws: ``OAuthError`` `invalid_request`.
    func accessTokenSubject(_ token: String, now: Int64) async throws -> ExchangeSubject {
        let refused = OAuthError.invalidRequest("subject_token is not a live access token of an owner of this server.")
        let policy = OAuthAccessClaims.policy(issuer: configuration.issuer, lifetime: configuration.accessTokenLifetime)
        guard let verified = try? keys.verifyWithLifetime(token, as: OAuthAccessClaims.self, policy: policy, now: now),
            case let claims = verified.claims,
            let record = try await grants.record(jti: claims.jti), record.isLive(at: now), record.matches(claims),
            record.clientInboxIDs == nil
        else { throw refused }
        var mayAct: OAuthTokenExchangeRules.MayAct?
        if let value = verified.payload["may_act"] {
            guard let read = Self.mayAct(value) else { throw refused }
            mayAct = read
        }
        return ExchangeSubject(
            rules: .init(
                ownerID: claims.ownerID, permissions: claims.permissions, resource: claims.resource,
                expiresAt: min(verified.expiresAt, record.grantExpiresAt), act: claims.act, mayAct: mayAct,
                inboxIDs: Self.reach(bound: record.boundAccountID, narrowed: record.actorInboxIDs)),
            grantID: record.grantID, jti: claims.jti, agentID: record.agentID, boundAccountID: record.boundAccountID)
    }

    /// An `actor_token`, when given: `client`'s own `private_key_jwt` assertion (`actor_token_type` jwt), verified
    /// like a client assertion and single use.
    /// - Throws: ``OAuthError`` `invalid_request`.
    func checkActorToken(_ fields: [String: String], _ client: OAuthConfidentialClient, now: Int64) async throws {
        let type = Self.nonEmpty(fields["actor_token_type"])
        guard let token = Self.nonEmpty(fields["actor_token"]) else {
            if type != nil { throw OAuthError.invalidRequest("actor_token_type was given without actor_token.") }
            return
        }
        guard type == Self.jwtTokenType else {
            throw OAuthError.invalidRequest("actor_token_type must be \(Self.jwtTokenType).")
        }
        guard client.authMethod == .privateKeyJWT else {
            throw OAuthError.invalidRequest("actor_token must be the client's own private_key_jwt assertion.")
        }
        let verified: OAuthClientAssertion.Verified
        do {
            verified = try await verifyAssertion(token, of: client, endpoint: configuration.tokenEndpoint, now: now)
        } catch let error as OAuthError {
            throw OAuthError.invalidRequest("actor_token: \(error.description)")
        }
        guard
            try await confidentialClients.recordAssertion(
                clientID: client.clientID, jti: verified.jti, expiresAt: verified.expiresAt, now: now)
        else {
            metrics.assertionReplays.increment()
            throw OAuthError.invalidRequest("actor_token was already used (jti).")
        }
    }

    /// What a token minted for `client` from `subject` carries (``OAuthTokenExchangeRules``), asked for by `fields`
    /// (`scope`, `resource`, `audience`), its audience one of this server's resources, its inboxes those of the
    /// subject's the owner holds now and `client` was bound to, its scope within the client's.
    /// - Throws: ``OAuthError``: the rule broken, in the codes of `grant` (``exchangeError(_:grant:)``);
    ///   `invalid_scope` for a scope naming other permissions; `invalid_target` for an audience none of this server's.
    func decide(
        _ subject: OAuthTokenExchangeRules.Subject, _ fields: [String: String], _ client: OAuthConfidentialClient,
        maximumDepth: Int, grant: String, now: Int64
    ) async throws -> OAuthTokenExchangeRules.Decision {
        // What the subject reaches is read now: of the inboxes it names, or else all the owner's, those still held.
        let held = try await inboxes.inboxes(ownerID: subject.ownerID).map(\.accountID)
        var subject = subject
        subject.inboxIDs = (subject.inboxIDs ?? held).filter(Set(held).contains)
        let request = OAuthTokenExchangeRules.Request(
            actorClientID: client.clientID,
            actorAllowed: try await grants.actorAllowed(ownerID: subject.ownerID, clientID: client.clientID),
            permissions: try Self.requestedPermissions(fields["scope"]),
            audiences: [fields["resource"], fields["audience"]].compactMap(Self.nonEmpty),
            actorPermissions: client.permissions, actorInboxIDs: client.inboxIDs)
        let decision: OAuthTokenExchangeRules.Decision
        do {
            decision = try OAuthTokenExchangeRules.decide(
                subject, request,
                limits: .init(maximumDepth: maximumDepth, accessTokenLifetime: configuration.accessTokenLifetime),
                issuer: configuration.issuer, now: now)
        } catch {
            throw Self.exchangeError(error, grant: grant)
        }
        guard OAuthResource(decision.resource, configuration: configuration) != nil else {
            throw OAuthError.invalidTarget("resource must be exactly one of this server's resources.")
        }
        return decision
    }

    /// Signs `token`'s access token, writes it, and answers with it (`issued_token_type` access_token, no refresh
    /// token).
    func mintDelegated(_ token: OAuthDelegatedToken, now: Int64) async throws -> HTTPResponse {
        let ttl = token.expiresAt - now
        let claims = OAuthAccessClaims(
            ownerID: token.ownerID, clientID: token.clientID, resource: token.resource,
            permissions: token.permissions, jti: token.jti, act: token.act)
        let (keys, issuer) = (keys, configuration.issuer)
        let signed = try await pool.run(.signing) {
            try keys.sign(claims.claims(issuer: issuer, issuedAt: now, ttl: ttl), for: OAuthAccessClaims.purpose)
        }
        try await grants.issueDelegatedToken(token, now: now)
        return OAuthJSON.response(
            .ok,
            .object([
                ("access_token", .string(signed)), ("issued_token_type", .string(Self.accessTokenType)),
                ("token_type", .string("Bearer")), ("expires_in", .int(ttl)),
                ("scope", .string(token.permissions.scope)),
            ]))
    }

    /// The answer to a broken exchange rule: RFC 8693's codes for token exchange, RFC 7523's for the JWT bearer
    /// grant (an unacceptable assertion is `invalid_grant` there).
    static func exchangeError(_ refusal: OAuthTokenExchangeRules.Refusal, grant: String) -> OAuthError {
        let unacceptable = grant == jwtBearerGrant ? OAuthError.invalidGrant : OAuthError.invalidRequest
        switch refusal {
        case .subjectExpired: return unacceptable("The subject token has expired.")
        case .actorNotAllowed:
            return .unauthorizedClient("The owner has not allowed this client to act for them (/owner/actors).")
        case .mayActRefuses: return unacceptable("The subject token's may_act names another party.")
        case .tooDeep: return unacceptable("The subject token has as many actors (act) as this server allows.")
        case .widerScope: return .invalidScope("scope is wider than the subject token's.")
        case .otherAudience: return .invalidTarget("resource and audience may only name the subject token's audience.")
        case .noAudience: return .invalidRequest("resource or audience is required.")
        case .outsideActorInboxes:
            return .invalidTarget("The client is bound to none of the inboxes the subject token reaches.")
        }
    }

    /// The inboxes a subject token reaches at most: the one its grant is bound to (`bound`), among those it was
    /// narrowed to when it was itself exchanged (`narrowed`); nil for every inbox the owner holds.
    static func reach(bound: String?, narrowed: [String]?) -> [String]? {
        guard let bound = bound?.lowercased() else { return narrowed }
        return narrowed.map { $0.contains(bound) ? [bound] : [] } ?? [bound]
    }

    /// A `may_act` claim: an object with a string `sub` and, optionally, a string `iss`; nil otherwise.
    static func mayAct(_ value: JSONValue) -> OAuthTokenExchangeRules.MayAct? {
        guard value.objectValue != nil, let subject = value["sub"]?.stringValue else { return nil }
        let issuer = value["iss"]
        if let issuer, issuer.stringValue == nil { return nil }
        return .init(subject: subject, issuer: issuer?.stringValue)
    }

    /// `value` unless it is nil or empty.
    static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
