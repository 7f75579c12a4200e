import HTTP1
import JSON
import JWT
import OAuthGrants
import ServerKit

extension OAuthService {
    /// The OpenID Provider's routes: `GET /.well-known/openid-configuration` (the RFC 8414 document itself),
    /// `GET`/`POST /oauth/userinfo` (with CORS preflight), `POST /oauth/openid-consent`, `GET`/`POST /oauth/logout`.
    func registerOpenID(into router: inout ContextRouter) {
        let limit = configuration.bodyLimit
        router.add(.GET, "/.well-known/openid-configuration", .immediate { [metadata] _, _, _ in
            OAuthJSON.response(.ok, metadata, cache: "public, max-age=300")
        })
        router.add(.OPTIONS, "/.well-known/openid-configuration", .immediate { _, _, _ in OAuthJSON.preflight() })
        for method in [HTTPMethod.GET, .POST] {
            router.add(method, "/oauth/userinfo", bodyLimit: limit, .deferred { [self] request, context, _ in
                await middleware.run(.endpoint, context) { try await userinfo(request) }
            })
            router.add(method, "/oauth/logout", bodyLimit: limit, .deferred { [self] request, context, _ in
                await pageMiddleware(context) { try await endSession(request) }
            })
        }
        router.add(.OPTIONS, "/oauth/userinfo", .immediate { _, _, _ in OAuthJSON.preflight() })
        router.add(.POST, "/oauth/openid-consent", bodyLimit: limit, .deferred { [self] request, context, _ in
            await pageMiddleware(context) { try await openIDConsent(request, client: context.clientAddress?.description) }
        })
    }

    /// The OpenID Provider metadata (OpenID Connect Discovery 1.0 section 3, RP-Initiated and Back-Channel Logout)
    /// added to the RFC 8414 members: the two documents are one.
    static func openIDMetadata(_ members: [(String, JSONValue)], issuer: String) -> [(String, JSONValue)] {
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        var members = members
        if let index = members.firstIndex(where: { $0.0 == "scopes_supported" }), case .array(let scopes) = members[index].1 {
            members[index].1 = .array(scopes + OIDCAuthorizationRequest.supportedScopes.map(JSONValue.string))
        }
        return members + [
            ("userinfo_endpoint", .string(issuer + "/oauth/userinfo")),
            ("end_session_endpoint", .string(issuer + "/oauth/logout")),
            ("subject_types_supported", strings(["public", "pairwise"])),
            ("id_token_signing_alg_values_supported", strings(OIDCRelyingParty.SigningAlgorithm.allCases.map(\.rawValue))),
            ("response_modes_supported", strings(["query"])),
            ("prompt_values_supported", strings(["none", "login", "consent", "select_account"])),
            ("claims_supported", strings([
                "iss", "sub", "aud", "azp", "exp", "iat", "auth_time", "nonce", "at_hash", "amr", "acr", "sid",
                "email", "email_verified", "preferred_username", "name",
            ])),
            ("acr_values_supported", strings(OIDCIDToken.acrValues)),
            ("claims_parameter_supported", .bool(true)),
            ("request_parameter_supported", .bool(false)),
            ("request_uri_parameter_supported", .bool(false)),
            ("backchannel_logout_supported", .bool(true)),
            ("backchannel_logout_session_supported", .bool(true)),
        ]
    }
}
