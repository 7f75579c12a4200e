import HTTP1

/// A surface's pages behind the one redirect URI (issue 54): the callback `GET /oidc/callback` is finished once by
/// ``SignInFlow/finish(query:browser:)`` and then handed to the surface that began the login, by the transaction's
/// ``SignInTransaction/surface``: owners' logins to the owner pages, Pro users' to the web inbox. Each surface owns what
/// an identity may do on it (``ProviderLinking``), its session and its pages.
public protocol SignInSurfacePages: Sendable {
    /// Answers a callback that came through every check, for a login this surface began.
    /// - Parameters:
    ///   - completed: the taken transaction, its provider and who signed in.
    ///   - request: the callback's request.
    ///   - client: the client's address, for the audit trail.
    ///   - clear: the `Set-Cookie` value that drops the pre-session ``SignInFlow/browserCookie``: every answer sends it.
    func signInCompleted(_ completed: CompletedSignIn, _ request: HTTPRequest, client: String?, clear: String)
        async throws -> HTTPResponse

    /// Answers a refused callback (no session is made): its reason on the audit trail, one fixed sentence shown.
    func signInRefused(_ refusal: SignInRefusal, _ request: HTTPRequest, client: String?, clear: String) async
        -> HTTPResponse
}

extension SignInFlow {
    /// The pre-session cookie a login transaction is bound to (the browser token of
    /// ``begin(provider:surface:account:returnTo:client:)``), one for every surface since the callback is one. It must
    /// be `SameSite=Lax` (or looser): it comes back with the provider's cross-site redirect; ten minutes, as the
    /// transaction.
    public static let browserCookie = "postern_oidc"

    /// Which surface's pages answer a callback: the surface the transaction names; a callback refused before any
    /// transaction was found (no state, a replay, another browser's) has none, and `fallback` answers it.
    /// - Parameters:
    ///   - request: the callback.
    ///   - surfaces: each surface's pages; a transaction of a surface without pages is refused as `.unknownProvider`.
    ///   - fallback: the surface whose pages answer what no transaction names.
    ///   - client: the client's address, for the audit trail.
    ///   - clear: the `Set-Cookie` value that drops ``browserCookie``.
    /// - Throws: the database's errors, and what a surface's pages throw.
    public func answer(
        _ request: HTTPRequest, surfaces: [SignInProvider.Surface: any SignInSurfacePages],
        fallback: SignInProvider.Surface, client: String?, clear: String
    ) async throws -> HTTPResponse {
        guard let fallbackPages = surfaces[fallback] else { preconditionFailure("no pages for the fallback surface") }
        let completed: CompletedSignIn
        do {
            completed = try await finish(query: request.queryItems, browser: request.cookie(Self.browserCookie))
        } catch let refusal as SignInRefusal {
            return await fallbackPages.signInRefused(refusal, request, client: client, clear: clear)
        }
        guard let pages = surfaces[completed.transaction.surface] else {
            return await fallbackPages.signInRefused(.unknownProvider, request, client: client, clear: clear)
        }
        return try await pages.signInCompleted(completed, request, client: client, clear: clear)
    }
}
