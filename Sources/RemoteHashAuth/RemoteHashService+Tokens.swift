import ComputePool
import HTTP1
import JWT
import ServerKit

extension RemoteHashService {
    /// `POST /validate`: the token from the body (`{"token"}` or a form field) or the Bearer header.
    /// 200 `{"valid":true,"payload":{...}}`; anything wrong, including a token superseded by logout,
    /// 401 `{"valid":false,"error":"Invalid token."}`.
    func validate(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
        let bodyToken = fields(request)?["token"].flatMap { $0.isEmpty ? nil : $0 }
        guard let token = bodyToken ?? request.bearerToken else { return invalidToken() }
        do throws(RemoteHashFailure) {
            guard let (claims, _) = try await currentClaims(token) else { return invalidToken() }
            return .noStoreJSON(.ok, ["valid": true, "payload": claims.json])
        } catch {
            report(error, context)
            return Self.jsonError(error)
        }
    }

    /// `DELETE /logout`: with a valid Bearer token, or with `email` and `password` in the body, bumps
    /// the user's token version so every token issued before stops validating.
    /// 200 `{"success":true,"email"}`; otherwise 401 `{"error":"Invalid token or credentials."}`.
    func logout(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
        let refused = HTTPResponse.noStoreJSON(
            .unauthorized, ["error": .string(RemoteHashMessage.invalidTokenOrCredentials)])
        do throws(RemoteHashFailure) {
            if let token = request.bearerToken {
                guard let (_, user) = try await currentClaims(token) else { return refused }
                return try await bump(user.email, expected: user.tokenVersion) ?? refused
            }
            let fields = fields(request) ?? [:]
            let email = normalizedEmail(fields["email"])
            guard !email.isEmpty, let password = fields["password"], !password.isEmpty else { return refused }
            let user: RemoteUser
            do {
                user = try await authenticate(email: email, password: password)
            } catch  where error.status == .unprocessableEntity {
                return refused
            }
            return try await bump(user.email, expected: nil) ?? refused
        } catch {
            report(error, context)
            return Self.jsonError(error)
        }
    }

    private func bump(_ email: String, expected: Int64?) async throws(RemoteHashFailure) -> HTTPResponse? {
        let updated: RemoteUser?
        do {
            updated = try await users.bumpTokenVersion(email: email, expected: expected)
        } catch {
            throw .unforeseen(error)
        }
        guard let updated else { return nil }
        return .noStoreJSON(.ok, ["success": true, "email": .string(updated.email)])
    }

    private func invalidToken() -> HTTPResponse {
        HTTPResponse.noStoreJSON(.unauthorized, ["valid": false, "error": .string(RemoteHashMessage.invalidToken)])
    }

    /// The claims of a valid, unexpired `remote-login` token of this issuer whose `ver` is the
    /// user's current token version, with that user; nil when any check fails.
    func currentClaims(_ token: String) async throws(RemoteHashFailure) -> (JWTClaims, RemoteUser)? {
        let keys = self.keys
        let policy = tokenPolicy
        let now = clock()
        let claims: JWTClaims
        do {
            claims = try await pool.run(.signing) {
                try keys.verify(token, policy: policy, now: now)
            }
        } catch is WorkerPoolError {
            throw .busy
        } catch {
            return nil
        }
        guard let email = claims.sub, claims["email"]?.stringValue == email, let version = claims["ver"]?.intValue
        else { return nil }
        let user: RemoteUser?
        do {
            user = try await users.find(email: email)
        } catch {
            throw .unforeseen(error)
        }
        guard let user, user.tokenVersion == version else { return nil }
        return (claims, user)
    }
}
