import HTTP1
import ServerKit
import SignInMethods
import SignInProviders

/// Owners' sign-in with identity providers (issue 54), mounted from ``SignInMethodsController`` (the one
/// implementation, ``SignInMethodsController+Providers``) over ``OwnerSignInFamily``:
/// - `POST /oidc/start` (`provider`, `surface=owners`, `intent` `sign-in` or `link`, `next`, `csrf_token`);
/// - the owners' side of `GET /oidc/callback` (``SignInFlow/answer(_:surfaces:fallback:client:clear:)``);
/// - `GET|POST /oidc/link`, the password question of an identity whose verified email an owner already has;
/// - `POST /owner/sign-in-methods/unlink` (`issuer`, `subject`), unless it is the owner's last way in.
public struct OwnerProviderPages: SignInSurfacePages {
    let methods: SignInMethodsController<OwnerSignInFamily>

    /// - Parameters:
    ///   - service: the owners' sessions, CSRF, store, passkeys and audit trail.
    ///   - flow: the providers and their logins.
    ///   - identities: the linked identities.
    public init(service: OwnerService, flow: SignInFlow, identities: SignInIdentityStore) {
        methods = service.signInMethods(flow: flow, identities: identities)
    }

    /// Adds `POST /oidc/start`, `GET|POST /oidc/link` and `POST /owner/sign-in-methods/unlink`.
    public func register(into router: inout ContextRouter) {
        methods.registerProviders(into: &router, bodyLimit: methods.family.service.configuration.bodyLimit)
    }

    public func signInRefused(_ refusal: SignInRefusal, _ request: HTTPRequest, client: String?, clear: String) async
        -> HTTPResponse
    {
        await methods.signInRefused(refusal, request, client: client, clear: clear)
    }

    public func signInCompleted(_ completed: CompletedSignIn, _ request: HTTPRequest, client: String?, clear: String)
        async throws -> HTTPResponse
    {
        try await methods.signInCompleted(completed, request, client: client, clear: clear)
    }
}
