import HTTP1
import JWT
import OAuthGrants

extension OAuthService {
    /// The form fields of a token, revocation or introspection request and the client they authenticate: the one
    /// client authentication every endpoint (and every grant) mounts on.
    /// - Parameter endpoint: the URL of the endpoint called, an audience a client assertion may name.
    /// - Throws: `invalid_request` for a body that is not a form; what ``authenticate(_:endpoint:)`` throws.
    func authenticatedForm(_ request: HTTPRequest, endpoint: String) async throws
        -> ([String: String], OAuthAuthenticatedClient)
    {
        guard request.contentTypeIsForm else {
            throw OAuthError.invalidRequest("The body must be application/x-www-form-urlencoded.")
        }
        let fields = request.formFields()
        let credential = try OAuthClientCredential.read(authorization: request.headers["Authorization"], fields: fields)
        return (fields, try await authenticate(credential, endpoint: endpoint))
    }

    /// Whether the operator's confidential clients authenticate here (client credentials, introspection, token
    /// exchange or the JWT bearer grant is on).
    var confidentialClientsServed: Bool { configuration.confidentialClientsServed }

    /// The client `credential` proves.
    ///
    /// A confidential client authenticates only the way it was made with (a secret, current or within its rotation's
    /// overlap, compared as digests in constant time; or a `private_key_jwt` assertion verified with its keys, its
    /// `jti` recorded so that a replay is refused on every instance). A registered client authenticates as it
    /// registered (`client_secret_post` with its secret, `none` with its id).
    /// - Throws: ``OAuthError`` `invalid_client` (401 with a Basic challenge when the credential came in the header):
    ///   unknown client, wrong or missing secret, another method than the client's, an assertion that does not
    ///   verify or was used before.
    func authenticate(_ credential: OAuthClientCredential, endpoint: String) async throws -> OAuthAuthenticatedClient {
        let refuse = { (text: String) -> OAuthError in Self.refusal(credential, text) }
        let now = clock()
        switch credential {
        case .basic(let clientID, let secret), .post(let clientID, let secret):
            let method: OAuthConfidentialClient.AuthMethod = credential.viaHeader ? .clientSecretBasic : .clientSecretPost
            if confidentialClientsServed, let client = try await confidentialClients.client(id: clientID) {
                return .confidential(try Self.secretChecked(client, credential, secret, now: now))
            }
            guard method == .clientSecretPost, let client = try await client(id: clientID) else {
                throw refuse("The client is unknown.")
            }
            guard client.authMethod == .clientSecretPost, client.secretMatches(secret) else {
                throw refuse("The client secret is missing or wrong.")
            }
            return .registered(client)
        case .assertion(let named, let assertion):
            guard confidentialClientsServed, let clientID = named ?? OAuthClientAssertion.claimedClient(assertion),
                let client = try await confidentialClients.client(id: clientID), client.authMethod == .privateKeyJWT
            else { throw refuse("The client is unknown or does not authenticate with private_key_jwt.") }
            let verified = try await verifyAssertion(assertion, of: client, endpoint: endpoint, now: now)
            guard
                try await confidentialClients.recordAssertion(
                    clientID: client.clientID, jti: verified.jti, expiresAt: verified.expiresAt, now: now)
            else {
                metrics.assertionReplays.increment()
                throw refuse("The client assertion was already used (jti).")
            }
            return .confidential(client)
        case .none(let clientID):
            guard let client = try await client(id: clientID) else { throw refuse("The client is unknown.") }
            if client.authMethod == .clientSecretPost { throw refuse("The client secret is missing or wrong.") }
            return .registered(client)
        }
    }

    /// A confidential client that `credential` names when its `secret` proves it: the client's own method (Basic or
    /// the form, as `credential` came) and its secret, current or within its rotation's overlap.
    /// - Throws: ``OAuthError`` `invalid_client`.
    static func secretChecked(
        _ client: OAuthConfidentialClient, _ credential: OAuthClientCredential, _ secret: String, now: Int64
    ) throws -> OAuthConfidentialClient {
        let method: OAuthConfidentialClient.AuthMethod = credential.viaHeader ? .clientSecretBasic : .clientSecretPost
        guard client.authMethod == method else {
            throw refusal(credential, "The client authenticates with \(client.authMethod.rawValue).")
        }
        guard client.secretMatches(secret, now: now) else {
            throw refusal(credential, "The client secret is missing or wrong.")
        }
        return client
    }

    /// The confidential client a secret in `request` (Basic, or the form's `client_secret`) proves, read on the calling
    /// thread (short work on SQLite); nil, having refused nothing, when the request is no such credential of such a
    /// client (another method, a registered client, a database that reads only off the calling thread): the request
    /// then goes through ``authenticatedForm(_:endpoint:)`` as any other.
    /// - Throws: ``OAuthError`` `invalid_client` for a wrong secret or method; storage errors.
    func confidentialClientNow(_ request: HTTPRequest, fields: [String: String]) throws -> OAuthConfidentialClient? {
        guard confidentialClientsServed, confidentialClients.readsOnCallingThread,
            let credential = try? OAuthClientCredential.read(authorization: request.headers["Authorization"], fields: fields)
        else { return nil }
        switch credential {
        case .basic(let clientID, let secret), .post(let clientID, let secret):
            guard let client = try confidentialClients.clientOnCallingThread(id: clientID) else { return nil }
            return try Self.secretChecked(client, credential, secret, now: clock())
        case .assertion, .none: return nil
        }
    }

    /// The `invalid_client` refusal of `credential`: 401 with a Basic challenge when it came in the header.
    static func refusal(_ credential: OAuthClientCredential, _ text: String) -> OAuthError {
        credential.viaHeader ? .invalidBasicClient(text) : .invalidClient(text)
    }

    /// Verifies `assertion` with `client`'s keys (inline, or its `jwks_uri`'s, fetched again once for an unknown
    /// `kid`), for this server's issuer, token endpoint or the endpoint called.
    /// - Throws: ``OAuthError`` `invalid_client`.
    func verifyAssertion(
        _ assertion: String, of client: OAuthConfidentialClient, endpoint: String, now: Int64
    ) async throws -> OAuthClientAssertion.Verified {
        let audiences = [configuration.issuer, configuration.tokenEndpoint, endpoint]
        func check(_ keys: PublishedKeySet) throws(JWTError) -> OAuthClientAssertion.Verified {
            try OAuthClientAssertion.verify(
                assertion, keys: keys, clientID: client.clientID, audiences: audiences, now: now,
                maxLifetime: configuration.assertionMaxLifetime)
        }
        let refused = OAuthError.invalidClient("The client assertion does not verify.")
        if let jwks = client.jwks {
            guard let keys = try? PublishedKeySet(jwks: Array(jwks.utf8)) else { throw refused }
            do { return try check(keys) } catch { throw Self.assertionError(error) }
        }
        guard let uri = client.jwksURI, let keys = await clientKeys.keys(at: uri, refresh: false, now: now) else {
            throw OAuthError.invalidClient("The client's keys cannot be fetched.")
        }
        do {
            return try check(keys)
        } catch where error.code == .unknownKey {
            guard let fresh = await clientKeys.keys(at: uri, refresh: true, now: now) else { throw refused }
            do { return try check(fresh) } catch { throw Self.assertionError(error) }
        } catch {
            throw Self.assertionError(error)
        }
    }

    /// The `invalid_client` answer to an assertion refused for `error`: the check that failed, never a key.
    static func assertionError(_ error: JWTError) -> OAuthError {
        switch error.code {
        case .unknownKey: .invalidClient("The client assertion's kid names none of the client's keys.")
        case .wrongAudience: .invalidClient("The client assertion's aud must be the issuer or the token endpoint.")
        case .expired: .invalidClient("The client assertion has expired.")
        case .lifetimeTooLong: .invalidClient("The client assertion's exp is too far ahead.")
        case .wrongIssuer: .invalidClient("The client assertion's iss and sub must be the client id.")
        case .missingClaim: .invalidClient("The client assertion lacks a required claim (aud, exp or jti).")
        default: .invalidClient("The client assertion does not verify.")
        }
    }
}
