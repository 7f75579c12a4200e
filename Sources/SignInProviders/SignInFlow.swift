import AuthCrypto
import Fetch
import HTTP1
import JWT

/// The outbound calls a sign-in makes to a provider: GETs for its discovery document and keys, the POST of the
/// token exchange, and the GETs with the access token (userinfo, GitHub's user and emails). ``Fetch/Fetcher`` is the
/// real one, with the provider's address policy.
public protocol ProviderTransport: URLFetching {
    /// POSTs `body` to `url` and returns the answer whatever its status (``Fetch/Fetcher/post(_:headers:body:readingBody:startWithin:)``).
    func post(
        _ url: String, headers: [(String, String)], body: [UInt8], readingBody: Bool, startWithin: Duration
    ) async throws(FetchError) -> FetchResponse
    /// GETs `url` with `headers` (a bearer token among them), following no redirect, and returns the answer whatever
    /// its status (``Fetch/Fetcher/get(_:headers:)``).
    func get(_ url: String, headers: [(String, String)]) async throws(FetchError) -> FetchResponse
}

extension Fetcher: ProviderTransport {}

/// Why a provider's callback signs nobody in. Typed, so that the surface tells the person one fixed sentence and logs
/// the case (never a code, a token or a state).
public enum SignInRefusal: Error, Sendable, Equatable {
    /// The callback carries no usable `state` or `code` (missing, empty, or a parameter given twice).
    case malformedCallback
    /// No login transaction answers the state: unknown, already used, expired, or begun by another browser.
    case noTransaction
    /// The provider sent the person back with an error (RFC 6749 section 4.1.2.1): its `error` code.
    case providerRefused(String)
    /// The transaction names a provider the configuration no longer has, or of a kind this flow does not run.
    case unknownProvider
    /// RFC 9207's `iss` parameter is not the provider's issuer, or is missing from a provider that promises it.
    case issuerParameter
    /// Discovery, the keys or the id_token were refused, or the userinfo or GitHub's user endpoints could not be
    /// reached or answered another status than 200 (``ProviderError``, whose `document` is `userinfo`, `user` or
    /// `emails` then).
    case provider(ProviderError)
    /// The token endpoint could not be reached.
    case tokenEndpoint(FetchError)
    /// The token endpoint refused the code (or the PKCE verifier), or answered something else than a token.
    case token(TokenResponse.Refusal)
    /// An OpenID Connect token answer without an `id_token`.
    case noIDToken
    /// The userinfo answer describes another subject than the id_token (OpenID Connect Core section 5.3.2), or the
    /// userinfo or GitHub's user or emails answer is not the JSON expected.
    case userDocument(ProviderIdentity.Refusal)
}

/// A provider's callback that came through every check: the transaction it finished and who the provider says
/// signed in. What that identity may do (sign in, link, sign up) is the surface's rule.
public struct CompletedSignIn: Sendable, Equatable {
    /// The login transaction, taken (it can never be used again).
    public let transaction: SignInTransaction
    /// The provider, as configured.
    public let provider: SignInProvider
    /// Who signed in: from the verified id_token (with userinfo's email when the id_token has none), or GitHub's
    /// user and primary email.
    public let identity: ProviderIdentity
}

/// The relying party's side of a sign-in with an OpenID Connect provider (issue 54 item 3), between the surfaces'
/// pages and the providers: ``begin(provider:surface:account:returnTo:client:)`` stores a single-use login transaction
/// and gives the authorization URL; ``finish(query:browser:)`` takes that transaction by the callback's `state` and the
/// browser's pre-session token (so a callback carried to another browser opens nothing), checks RFC 9207's `iss`,
/// exchanges the code with the PKCE verifier through the provider's transport, and verifies the id_token (signature,
/// issuer, audience, azp, times and nonce, ``ProviderKeys``). When the id_token carries no email and the provider has
/// a userinfo endpoint, the userinfo answer is merged in, only when its `sub` is the id_token's (OpenID Connect Core
/// section 5.3.2); a userinfo that cannot be had or names another subject refuses the sign-in.
///
/// A GitHub provider has no discovery, no id_token and no nonce: its OAuth endpoints under the web URL
/// (``ProviderEndpoints/gitHub(webURL:)``, the same PKCE and state), then `GET /user` and `GET /user/emails` of its API
/// with the access token (``gitHubHeaders(accessToken:)``); the identity is the numeric user id under the web URL as
/// issuer, its email the primary address with GitHub's `verified` (``ProviderIdentity/gitHub(webURL:user:emails:)``).
/// GitHub publishes no issuer identifier, so RFC 9207's `iss` is not checked for it.
///
/// Every provider's discovery document and keys are kept per instance (``ProviderKeys``); the transactions live in the
/// database, so a callback is answered by any instance.
public final class SignInFlow: Sendable {
    /// The providers, as configured.
    public let configuration: SignInProvidersConfiguration
    /// The one redirect URI of every provider and surface (``SignInRedirect``).
    public let redirectURI: String
    /// Where a provider's logout sends the browser back to (`post_logout_redirect_uri`): the server's public URL with
    /// one trailing `/`, to register at a provider whose `_LOGOUT` is on.
    public let postLogoutRedirectURI: String
    let transactions: SignInTransactionStore
    let keys: [String: ProviderKeys]
    let transports: [String: any ProviderTransport]

    /// Why a login cannot begin.
    public enum StartError: Error, Sendable, Equatable {
        /// No provider of that name signs people into that surface.
        case unknownProvider
        /// The return path is not a path on this server.
        case returnPathNotLocal
        /// The provider's discovery document could not be had.
        case provider(ProviderError)
        /// Too many sign-ins are waiting for their callback, from this client or from all
        /// (``SignInTransactionStore/limits``).
        case busy
    }

    /// - Parameters:
    ///   - configuration: the providers.
    ///   - publicURL: the server's public URL, for the redirect URI.
    ///   - transactions: the login transactions.
    ///   - transport: the outbound client for a provider (its `_ALLOW_PRIVATE_NETWORK` decides the address policy);
    ///     what it throws, this throws.
    ///   - clock: Unix seconds.
    public init(
        configuration: SignInProvidersConfiguration, publicURL: String, transactions: SignInTransactionStore,
        transport: (SignInProvider) throws -> any ProviderTransport, clock: @escaping @Sendable () -> Int64
    ) rethrows {
        self.configuration = configuration
        redirectURI = SignInRedirect.uri(publicURL: publicURL)
        postLogoutRedirectURI = SignInRedirect.postLogoutURI(publicURL: publicURL)
        self.transactions = transactions
        var keys: [String: ProviderKeys] = [:]
        var transports: [String: any ProviderTransport] = [:]
        for provider in configuration.providers {
            let client = try transport(provider)
            transports[provider.name] = client
            if case .oidc(let issuer) = provider.kind {
                keys[provider.name] = ProviderKeys(
                    issuer: issuer, allowHTTP: provider.allowPrivateNetwork, fetcher: client, clock: clock)
            }
        }
        self.keys = keys
        self.transports = transports
    }

    /// The published keys of the OpenID Connect provider signing owners in whose configured issuer is exactly
    /// `issuer` (what an identity assertion it signed is checked with); nil when there is none or its keys cannot be
    /// fetched.
    /// - Parameter refresh: fetch them again (an unknown `kid`), at most once a minute.
    public func publishedKeys(issuer: String, refresh: Bool) async -> PublishedKeySet? {
        guard
            let provider = configuration.providers.first(where: {
                $0.surfaces.contains(.owners) && $0.kind == .oidc(issuer: issuer)
            }), let keys = keys[provider.name]
        else { return nil }
        return try? await keys.publishedKeys(refresh: refresh)
    }

    /// The providers whose button `surface` shows, in configured order: those that sign into it.
    public func providers(for surface: SignInProvider.Surface) -> [SignInProvider] {
        configuration.providers.filter { $0.surfaces.contains(surface) }
    }

    /// The headers of a call to GitHub's REST API: its media type, the access token as a bearer token, and the API
    /// version the documents are read in. (`User-Agent`, which GitHub requires, is the fetcher's.)
    public static func gitHubHeaders(accessToken: String) -> [(String, String)] {
        [
            ("Accept", "application/vnd.github+json"), ("Authorization", "Bearer " + accessToken),
            ("X-GitHub-Api-Version", "2022-11-28"),
        ]
    }

    /// Begins a login with `provider` for `surface`: a new transaction (state, nonce, PKCE verifier, ten minutes) bound
    /// to a new browser token, and the URL of the provider's authorization endpoint to send the browser to.
    /// - Parameters:
    ///   - account: the signed-in account to link the identity to; nil for a sign-in.
    ///   - returnTo: the local path to go back to.
    ///   - client: the key of the client that asks (`ClientAddressKey`'s text), whose share a sign-in counts against.
    /// - Returns: the authorization URL and the browser token (for a pre-session cookie the callback must bring).
    /// - Throws: ``StartError``; the database's errors.
    public func begin(
        provider name: String, surface: SignInProvider.Surface, account: String?, returnTo: String,
        client: String? = nil
    ) async throws -> (url: String, browser: String) {
        guard let provider = providers(for: surface).first(where: { $0.name == name }) else {
            throw StartError.unknownProvider
        }
        let endpoints: ProviderEndpoints
        switch provider.kind {
        case .github(let webURL, _):
            endpoints = .gitHub(webURL: webURL)
        case .oidc:
            guard let keys = keys[name] else { throw StartError.unknownProvider }
            do {
                endpoints = ProviderEndpoints(try await keys.discovery())
            } catch {
                throw StartError.provider(error)
            }
        }
        let browser = Base64URL.encode(SecureRandom.bytes(32))
        let (state, transaction): (String, SignInTransaction)
        do {
            (state, transaction) = try await transactions.begin(
                provider: name, surface: surface, account: account, returnTo: returnTo, browser: browser,
                client: client)
        } catch SignInTransactionError.returnPathNotLocal {
            throw StartError.returnPathNotLocal
        } catch SignInTransactionError.full {
            throw StartError.busy
        }
        let url = transaction.authorizationURL(
            provider: provider, endpoints: endpoints, state: state, redirectURI: redirectURI)
        return (url, browser)
    }

    /// Finishes a login from the provider's callback: the transaction of its `state` is taken (deleted) first, whatever
    /// follows, so a state works once.
    /// - Parameters:
    ///   - query: the callback's query items.
    ///   - browser: the browser's pre-session token (its cookie); nil when it brought none.
    /// - Throws: ``SignInRefusal``; the database's errors are `.noTransaction`'s cousins and thrown as they are.
    public func finish(query: [(name: String, value: String)], browser: String?) async throws -> CompletedSignIn {
        guard let callback = AuthorizationCallback(query: query) else { throw SignInRefusal.malformedCallback }
        let state: String? =
            switch callback {
            case .code(_, let state, _): state
            case .refused(_, let state): state
            }
        let transaction: SignInTransaction? =
            if let state, let browser { try await transactions.take(state: state, browser: browser) } else { nil }
        // The provider's own answer first: a person who cancelled there is told so, and the audit keeps the provider's
        // `error`, even when the callback brings no state (some providers leave it out of an error) or no cookie.
        if case .refused(let error, _) = callback { throw SignInRefusal.providerRefused(error) }
        guard let transaction else { throw SignInRefusal.noTransaction }
        guard case .code(let code, _, let issuerParameter) = callback else { throw SignInRefusal.malformedCallback }
        guard let provider = configuration.provider(named: transaction.provider),
            let transport = transports[provider.name]
        else { throw SignInRefusal.unknownProvider }
        let identity: ProviderIdentity
        switch provider.kind {
        case .github(let webURL, let apiURL):
            let tokens = try await exchange(
                code, transaction, provider, endpoints: .gitHub(webURL: webURL), transport: transport)
            identity = try await gitHubIdentity(
                webURL: webURL, apiURL: apiURL, accessToken: tokens.accessToken, transport: transport)
        case .oidc:
            guard let keys = keys[provider.name] else { throw SignInRefusal.unknownProvider }
            let metadata: ProviderMetadata
            do {
                // Without `iss` the answer hangs on whether the provider promises it now: the document is read again
                // when the copy kept is a minute old (a provider that started promising it is held to it).
                metadata = try await issuerParameter == nil ? keys.currentDiscovery() : keys.discovery()
            } catch {
                throw SignInRefusal.provider(error)
            }
            guard metadata.acceptsResponseIssuer(issuerParameter) else { throw SignInRefusal.issuerParameter }
            let tokens = try await exchange(
                code, transaction, provider, endpoints: ProviderEndpoints(metadata), transport: transport)
            guard let idToken = tokens.idToken else { throw SignInRefusal.noIDToken }
            let claims: IDTokenClaims
            do {
                claims = try await keys.verify(idToken: idToken, clientID: provider.clientID, nonce: transaction.nonce)
            } catch {
                throw SignInRefusal.provider(error)
            }
            identity = try await withUserinfo(
                ProviderIdentity(claims), metadata: metadata, accessToken: tokens.accessToken, transport: transport)
        }
        return CompletedSignIn(transaction: transaction, provider: provider, identity: identity)
    }

    /// Exchanges `code` at the token endpoint with the transaction's PKCE verifier.
    /// - Throws: ``SignInRefusal`` `.tokenEndpoint`, `.token`.
    private func exchange(
        _ code: String, _ transaction: SignInTransaction, _ provider: SignInProvider, endpoints: ProviderEndpoints,
        transport: any ProviderTransport
    ) async throws(SignInRefusal) -> TokenResponse {
        let (headers, body) = transaction.tokenRequest(
            code: code, provider: provider, endpoints: endpoints, redirectURI: redirectURI)
        let answer: FetchResponse
        do {
            answer = try await transport.post(
                endpoints.token, headers: headers, body: body, readingBody: true, startWithin: .seconds(10))
        } catch {
            throw .tokenEndpoint(error)
        }
        do {
            return try TokenResponse(body: answer.body)
        } catch {
            throw .token(error)
        }
    }

    /// `identity` with the provider's userinfo merged in when the id_token gave no email and the provider has a
    /// userinfo endpoint; `identity` as it is otherwise.
    /// - Throws: ``SignInRefusal`` `.provider` (unreachable, or not 200), `.userDocument` (another `sub`, malformed).
    private func withUserinfo(
        _ identity: ProviderIdentity, metadata: ProviderMetadata, accessToken: String,
        transport: any ProviderTransport
    ) async throws(SignInRefusal) -> ProviderIdentity {
        guard identity.email == nil, let endpoint = metadata.userinfoEndpoint else { return identity }
        let body = try await document(
            endpoint, "userinfo",
            headers: [("Accept", "application/json"), ("Authorization", "Bearer " + accessToken)], transport: transport)
        do {
            return try identity.merging(userinfo: body)
        } catch {
            throw .userDocument(error)
        }
    }

    /// Who GitHub says signed in: `GET /user` and `GET /user/emails` of its API with the access token.
    /// - Throws: ``SignInRefusal`` `.provider` (unreachable, or not 200), `.userDocument` (malformed).
    private func gitHubIdentity(
        webURL: String, apiURL: String, accessToken: String, transport: any ProviderTransport
    ) async throws(SignInRefusal) -> ProviderIdentity {
        let headers = Self.gitHubHeaders(accessToken: accessToken)
        let user = try await document(apiURL + "/user", "user", headers: headers, transport: transport)
        let emails = try await document(apiURL + "/user/emails", "emails", headers: headers, transport: transport)
        do {
            return try ProviderIdentity.gitHub(webURL: webURL, user: user, emails: emails)
        } catch {
            throw .userDocument(error)
        }
    }

    /// The body of a 200 answer to a GET of `url` with `headers`.
    /// - Throws: ``SignInRefusal/provider(_:)`` with `.unreachable` or `.status(_, document: name)`.
    private func document(
        _ url: String, _ name: String, headers: [(String, String)], transport: any ProviderTransport
    ) async throws(SignInRefusal) -> [UInt8] {
        let answer: FetchResponse
        do {
            answer = try await transport.get(url, headers: headers)
        } catch {
            throw .provider(.unreachable(error))
        }
        guard answer.status == 200 else { throw .provider(.status(answer.status, document: name)) }
        return answer.body
    }

    /// Where signing out of a session that `provider` opened sends the browser after Postern's session is ended:
    /// the provider's `end_session_endpoint` (OpenID Connect RP-Initiated Logout 1.0 section 2) with `client_id` and
    /// `post_logout_redirect_uri` = ``postLogoutRedirectURI`` (the id_token is not kept, so no `id_token_hint`), when its
    /// `_LOGOUT` is on and its discovery document names one; nil otherwise (a provider gone from the configuration,
    /// `_LOGOUT` off, GitHub, no endpoint, or discovery failing now: Postern's own sign-out stands).
    public func endSessionURL(provider name: String) async -> String? {
        guard let provider = configuration.provider(named: name), provider.logout, let keys = keys[name],
            let endpoint = try? await keys.discovery().endSessionEndpoint
        else { return nil }
        return PercentEncoding.appending(
            [("client_id", provider.clientID), ("post_logout_redirect_uri", postLogoutRedirectURI)], to: endpoint)
    }

    /// Each provider's discovery state, for `postern oidc show`: its discovery document fetched now (or kept), or why
    /// not; GitHub providers have none.
    public func discoveryStates() async -> [(provider: SignInProvider, state: Result<ProviderMetadata, ProviderError>?)]
    {
        var states: [(SignInProvider, Result<ProviderMetadata, ProviderError>?)] = []
        for provider in configuration.providers {
            guard let keys = keys[provider.name] else {
                states.append((provider, nil))
                continue
            }
            do {
                states.append((provider, .success(try await keys.discovery())))
            } catch {
                states.append((provider, .failure(error)))
            }
        }
        return states
    }
}
