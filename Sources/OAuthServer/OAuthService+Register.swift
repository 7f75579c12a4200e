import HTTP1
import JSON

extension OAuthService {
    /// `POST /oauth/register` (RFC 7591; contract 1.6): 201 with the client's id, its secret when it registered
    /// `client_secret_post`, and the registration as accepted.
    func register(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard request.contentTypeIsJSON else {
            throw OAuthError.invalidClientMetadata("The body must be JSON (Content-Type: application/json).")
        }
        let registration = try OAuthClientRegistration(body: request.body, configuration: configuration)
        let registered = try await clients.register(registration, now: clock())
        metrics.registrations.increment()
        var members: [(String, JSONValue)] = [
            ("client_id", .string(registered.clientID)), ("client_id_issued_at", .int(registered.issuedAt)),
        ]
        if let secret = registered.secret {
            members.append(("client_secret", .string(secret)))
            members.append(("client_secret_expires_at", .int(0)))
        }
        return OAuthJSON.response(.created, .object(members + registration.echoed))
    }
}
