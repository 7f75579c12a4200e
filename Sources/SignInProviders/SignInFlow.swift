import AuthCrypto
import Fetch

/// The outbound calls a sign-in makes to a provider: GETs for its discovery document and keys, and the POST of the
/// token exchange. ``Fetch/Fetcher`` is the real one, with the provider's address policy.
public protocol ProviderTransport: URLFetching {
    /// POSTs `body` to `url` and returns the answer whatever its status (``Fetch/Fetcher/post(_:headers:body:readingBody:startWithin:)``).
    func post(
        _ url: String, headers: [(String, String)], body: [UInt8], readingBody: Bool, startWithin: Duration
    ) async throws(FetchError) -> FetchResponse
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
    /// Discovery, the keys or the id_token were refused (``ProviderError``).
    case provider(ProviderError)
    /// The token endpoint could not be reached.
    case tokenEndpoint(FetchError)
    /// The token endpoint refused the code (or the PKCE verifier), or answered something else than a token.
    case token(TokenResponse.Refusal)
    /// An OpenID Connect token answer without an `id_token`.
    case noIDToken
}

/// A provider's callback that came through every check: the transaction it finished and who the provider says
/// signed in. What that identity may do (sign in, link, sign up) is the surface's rule.
public struct CompletedSignIn: Sendable, Equatable {
    /// The login transaction, taken (it can never be used again).
    public let transaction: SignInTransaction
    /// The provider, as configured.
    public let provider: SignInProvider
    /// Who signed in, from the verified id_token.
    public let identity: ProviderIdentity
}

/// The relying party's side of a sign-in with an OpenID Connect provider (issue 54 item 3), between the surfaces'
/// pages and the providers: ``begin(provider:surface:account:returnTo:)`` stores a single-use login transaction and
/// gives the authorization URL; ``finish(query:browser:)`` takes that transaction by the callback's `state` and the
/// browser's pre-session token (so a callback carried to another browser opens nothing), checks RFC 9207's `iss`,
/// exchanges the code with the PKCE verifier through the provider's transport, and verifies the id_token (signature,
/// issuer, audience, azp, times and nonce, ``ProviderKeys``).
///
/// Every provider's discovery document and keys are kept per instance (``ProviderKeys``); the transactions live in the
/// database, so a callback is answered by any instance. GitHub providers are not run by this flow yet: they have no
/// button and ``begin(provider:surface:account:returnTo:)`` refuses them.
public final class SignInFlow: Sendable {
    /// The providers, as configured.
    public let configuration: SignInProvidersConfiguration
    /// The one redirect URI of every provider and surface (``SignInRedirect``).
    public let redirectURI: String
    let transactions: SignInTransactionStore
    let keys: [String: ProviderKeys]
    let transports: [String: any ProviderTransport]

    /// Why a login cannot begin.
    public enum StartError: Error, Sendable, Equatable {
        /// No provider of that name signs people into that surface (or it is a GitHub provider, not run yet).
        case unknownProvider
        /// The return path is not a path on this server.
        case returnPathNotLocal
        /// The provider's discovery document could not be had.
        case provider(ProviderError)
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

    /// The providers whose button `surface` shows, in configured order: the OpenID Connect ones that sign into it.
    public func providers(for surface: SignInProvider.Surface) -> [SignInProvider] {
        configuration.providers.filter { $0.surfaces.contains(surface) && keys[$0.name] != nil }
    }

    /// Begins a login with `provider` for `surface`: a new transaction (state, nonce, PKCE verifier, ten minutes) bound
    /// to a new browser token, and the URL of the provider's authorization endpoint to send the browser to.
    /// - Parameters:
    ///   - account: the signed-in account to link the identity to; nil for a sign-in.
    ///   - returnTo: the local path to go back to.
    /// - Returns: the authorization URL and the browser token (for a pre-session cookie the callback must bring).
    /// - Throws: ``StartError``; the database's errors.
    public func begin(
        provider name: String, surface: SignInProvider.Surface, account: String?, returnTo: String
    ) async throws -> (url: String, browser: String) {
        guard let provider = providers(for: surface).first(where: { $0.name == name }), let keys = keys[name] else {
            throw StartError.unknownProvider
        }
        let metadata: ProviderMetadata
        do {
            metadata = try await keys.discovery()
        } catch {
            throw StartError.provider(error)
        }
        let browser = Base64URL.encode(SecureRandom.bytes(32))
        let (state, transaction): (String, SignInTransaction)
        do {
            (state, transaction) = try await transactions.begin(
                provider: name, surface: surface, account: account, returnTo: returnTo, browser: browser)
        } catch SignInTransactionError.returnPathNotLocal {
            throw StartError.returnPathNotLocal
        }
        let url = transaction.authorizationURL(
            provider: provider, endpoints: ProviderEndpoints(metadata), state: state, redirectURI: redirectURI)
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
        guard let state, let browser, let transaction = try await transactions.take(state: state, browser: browser)
        else { throw SignInRefusal.noTransaction }
        guard case .code(let code, _, let issuerParameter) = callback else {
            if case .refused(let error, _) = callback { throw SignInRefusal.providerRefused(error) }
            throw SignInRefusal.malformedCallback
        }
        guard let provider = configuration.provider(named: transaction.provider), let keys = keys[provider.name],
            let transport = transports[provider.name]
        else { throw SignInRefusal.unknownProvider }
        let metadata: ProviderMetadata
        do {
            metadata = try await keys.discovery()
        } catch {
            throw SignInRefusal.provider(error)
        }
        guard metadata.acceptsResponseIssuer(issuerParameter) else { throw SignInRefusal.issuerParameter }
        let (headers, body) = transaction.tokenRequest(
            code: code, provider: provider, endpoints: ProviderEndpoints(metadata), redirectURI: redirectURI)
        let answer: FetchResponse
        do {
            answer = try await transport.post(
                metadata.tokenEndpoint, headers: headers, body: body, readingBody: true, startWithin: .seconds(10))
        } catch {
            throw SignInRefusal.tokenEndpoint(error)
        }
        let tokens: TokenResponse
        do {
            tokens = try TokenResponse(body: answer.body)
        } catch {
            throw SignInRefusal.token(error)
        }
        guard let idToken = tokens.idToken else { throw SignInRefusal.noIDToken }
        let claims: IDTokenClaims
        do {
            claims = try await keys.verify(idToken: idToken, clientID: provider.clientID, nonce: transaction.nonce)
        } catch {
            throw SignInRefusal.provider(error)
        }
        return CompletedSignIn(transaction: transaction, provider: provider, identity: ProviderIdentity(claims))
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
