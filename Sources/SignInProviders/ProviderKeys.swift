import Fetch
import JWT

/// Why a provider could not be used, or refused a sign-in: typed, so that the caller picks what to tell the person
/// (always that the sign-in failed) and what to log (the provider and this case, never a token).
public enum ProviderError: Error, Sendable, Equatable {
    /// The discovery document, the JWKS, the userinfo or GitHub's user documents could not be fetched (address
    /// policy, connection, TLS, size, time).
    case unreachable(FetchError)
    /// The discovery document (`discovery`), the JWKS (`jwks`), the userinfo (`userinfo`) or GitHub's `GET /user`
    /// (`user`) or `GET /user/emails` (`emails`) answered another status than 200.
    case status(Int, document: String)
    /// The discovery document was refused (its issuer, an endpoint, what the provider offers).
    case discovery(DiscoveryError)
    /// The JWKS is not a JSON object with a keys array.
    case keys(JWTError)
    /// The id_token was refused (``IDToken/verify(_:keys:expecting:now:)``).
    case token(JWTError)
}

/// One OpenID Connect provider's discovery document and keys, fetched on first need through the outbound fetcher (its
/// address policy, TLS checks and size limits) and kept for ``documentLifetime`` seconds, and the id_token check with
/// them.
///
/// A token whose `kid` the keys do not hold (the provider rotated, or moved its keys to another `jwks_uri`) reads the
/// discovery document and the JWKS again once, and at most once every ``refetchInterval`` seconds, so that a stream of
/// made-up kids cannot make the server fetch without end: within it, the unknown kid is refused. An answer that hangs
/// on what the document promises now (a callback without RFC 9207's `iss`) reads it again likewise first
/// (``currentDiscovery()``, issue 66 item 7), so a provider that starts promising `iss` is held to it within a minute,
/// not an hour.
public actor ProviderKeys {
    /// How long a discovery document or JWKS is kept before it is fetched again, in seconds: an hour.
    public static let documentLifetime: Int64 = 3600
    /// The least time between two JWKS fetches caused by unknown kids, in seconds: a minute.
    public static let refetchInterval: Int64 = 60

    /// The issuer, exactly as configured.
    public let issuer: String
    private let allowHTTP: Bool
    private let fetcher: any URLFetching
    private let clock: @Sendable () -> Int64
    private var metadata: (ProviderMetadata, fetchedAt: Int64)?
    private var keys: (PublishedKeySet, fetchedAt: Int64)?
    /// One fetch per document at a time: sign-ins that meet an old or missing copy together share one request.
    let flights = SingleFlight<String, [UInt8], ProviderError>()

    /// - Parameters:
    ///   - issuer: the provider's issuer (``SignInProvider/Kind/oidc(issuer:)``).
    ///   - allowHTTP: whether its endpoints may be http (`_ALLOW_PRIVATE_NETWORK`).
    ///   - fetcher: the outbound fetcher, with the provider's address policy.
    ///   - clock: Unix seconds.
    public init(
        issuer: String, allowHTTP: Bool, fetcher: any URLFetching, clock: @escaping @Sendable () -> Int64
    ) {
        self.issuer = issuer
        self.allowHTTP = allowHTTP
        self.fetcher = fetcher
        self.clock = clock
    }

    /// The provider's discovery document, fetched when none is kept or it is older than ``documentLifetime``.
    /// - Throws: ``ProviderError`` `.unreachable`, `.status`, `.discovery`.
    public func discovery() async throws(ProviderError) -> ProviderMetadata {
        try await discovery(keptFor: Self.documentLifetime)
    }

    /// The provider's discovery document as it is now: fetched again unless the copy kept is less than
    /// ``refetchInterval`` seconds old. For an answer that hangs on what the provider promises (a callback without
    /// RFC 9207's `iss`: a provider that started promising it since must not be taken at its old word).
    /// - Throws: ``ProviderError`` `.unreachable`, `.status`, `.discovery`.
    public func currentDiscovery() async throws(ProviderError) -> ProviderMetadata {
        try await discovery(keptFor: Self.refetchInterval)
    }

    /// The discovery document kept, when it is younger than `lifetime` seconds; else fetched and kept.
    private func discovery(keptFor lifetime: Int64) async throws(ProviderError) -> ProviderMetadata {
        let now = clock()
        if let (metadata, fetchedAt) = metadata, now - fetchedAt < lifetime { return metadata }
        let body = try await fetch(ProviderMetadata.discoveryURL(issuer: issuer), document: "discovery")
        do {
            let fetched = try ProviderMetadata(document: body, issuer: issuer, allowHTTP: allowHTTP)
            metadata = (fetched, now)
            return fetched
        } catch {
            throw .discovery(error)
        }
    }

    /// Verifies an id_token from this provider for `clientID` and the login's `nonce`, with the keys kept or fetched;
    /// on an unknown kid, with the discovery document (its `jwks_uri`) and the JWKS read again when the last JWKS
    /// fetch is ``refetchInterval`` seconds old.
    /// - Throws: ``ProviderError``; `.token` with the id_token's refusal.
    public func verify(idToken: String, clientID: String, nonce: String) async throws(ProviderError) -> IDTokenClaims {
        let metadata = try await discovery()
        let expectation = IDTokenExpectation(issuer: metadata.issuer, clientID: clientID, nonce: nonce)
        let now = clock()
        var current: (PublishedKeySet, fetchedAt: Int64)
        if let keys, now - keys.fetchedAt < Self.documentLifetime {
            current = keys
        } else {
            current = (try await fetchKeys(metadata), now)
        }
        do {
            return try IDToken.verify(idToken, keys: current.0, expecting: expectation, now: now)
        } catch  where error.code == .unknownKey && now - current.fetchedAt >= Self.refetchInterval {
            current = (try await fetchKeys(try await currentDiscovery()), now)
        } catch {
            throw .token(error)
        }
        do {
            return try IDToken.verify(idToken, keys: current.0, expecting: expectation, now: now)
        } catch {
            throw .token(error)
        }
    }

    /// The provider's published keys, kept or fetched, for a token other than an id_token that the provider signs (an
    /// identity assertion, ID-JAG). `refresh` (the token's `kid` was unknown) reads the discovery document and the
    /// JWKS again, unless the keys kept were fetched less than ``refetchInterval`` seconds ago.
    /// - Throws: ``ProviderError``.
    public func publishedKeys(refresh: Bool) async throws(ProviderError) -> PublishedKeySet {
        let now = clock()
        if let keys, now - keys.fetchedAt < (refresh ? Self.refetchInterval : Self.documentLifetime) { return keys.0 }
        return try await fetchKeys(refresh ? try await currentDiscovery() : try await discovery())
    }

    /// Fetches the JWKS and keeps it.
    private func fetchKeys(_ metadata: ProviderMetadata) async throws(ProviderError) -> PublishedKeySet {
        let body = try await fetch(metadata.jwksURI, document: "jwks")
        do {
            let set = try PublishedKeySet(jwks: body)
            keys = (set, clock())
            return set
        } catch {
            throw .keys(error)
        }
    }

    /// The body of a 200 answer to `url`, fetched once for every caller that asks while the fetch is in flight.
    private func fetch(_ url: String, document: String) async throws(ProviderError) -> [UInt8] {
        let fetcher = fetcher
        return try await flights.run(url) { () async throws(ProviderError) -> [UInt8] in
            try await Self.fetch(url, document: document, through: fetcher)
        }
    }

    /// The body of a 200 answer to `url`, fetched through `fetcher`.
    private static func fetch(_ url: String, document: String, through fetcher: any URLFetching)
        async throws(ProviderError) -> [UInt8]
    {
        let response: FetchResponse
        do {
            response = try await fetcher.fetch(url)
        } catch .badStatus(let status) {
            throw .status(status, document: document)
        } catch {
            throw .unreachable(error)
        }
        guard response.status == 200 else { throw .status(response.status, document: document) }
        return response.body
    }
}
