import AuthCrypto
import ComputePool
import Foundation
import HTTP1
import JSON
import JWT
import ServerKit

extension RemoteHashService {
    /// `POST /login`: fetch the user's URL again and verify the password against the hash it serves
    /// now; mint an RS256 token. Unknown email or wrong password: `Invalid email or password.`;
    /// fetch and format failures keep their own messages.
    ///
    /// JSON: 200 `{"token","token_type":"Bearer","email"}` or 422 `{"error"}`. HTML: the page with
    /// the token and its decoded header and claims, or the page again with the message.
    func login(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
        let wantsJSON = request.acceptsJSON
        guard let fields = fields(request) else {
            let failure = RemoteHashFailure(.badRequest, RemoteHashMessage.badBody)
            return wantsJSON ? Self.jsonError(failure) : loginPage(request, [:], failure)
        }
        if needsCSRF(request) && !csrfValid(request, fields) { return csrfRefused(request, form: "login", fields) }
        let email = normalizedEmail(fields["email"])
        let token: String
        do throws(RemoteHashFailure) {
            let user = try await authenticate(email: email, password: fields["password"] ?? "")
            token = try await mintToken(for: user)
        } catch {
            report(error, context)
            return wantsJSON ? Self.jsonError(error) : loginPage(request, fields, error)
        }
        if wantsJSON {
            return .noStoreJSON(.ok, ["token": .string(token), "token_type": "Bearer", "email": .string(email)])
        }
        var (page, setCookie) = basePage(request)
        page.loginEmail = email
        page.login = RemoteHashService.decodedForDisplay(token)
        return html(.ok, page, setCookies: [setCookie])
    }

    /// The user whose current remote hash `password` matches.
    /// - Throws: `Invalid email or password.` for an unknown email or a wrong password; the fetch,
    ///   format and limit failures of the remote hash; 503 when busy.
    func authenticate(email: String, password: String) async throws(RemoteHashFailure) -> RemoteUser {
        let found: RemoteUser?
        do {
            found = email.isEmpty ? nil : try await users.find(email: email)
        } catch {
            throw .unforeseen(error)
        }
        guard let user = found else {
            try await spendLikeALogin(password)
            throw .unprocessable(RemoteHashMessage.invalidLogin)
        }
        let started = ContinuousClock.now
        let hash = try await verifier.currentHash(at: user.passwordHashURL)
        decoy.record(fetch: ContinuousClock.now - started, hash: hash)
        guard try await verifier.verify(password, against: hash) else {
            throw .unprocessable(RemoteHashMessage.invalidLogin)
        }
        return user
    }

    /// For an unknown email: waits as long as a recent real login's fetch took, then verifies against a
    /// random hash of that login's costs (see ``LoginDecoy``). The result is ignored.
    /// - Throws: 503 when busy, as a real verification would.
    private func spendLikeALogin(_ password: String) async throws(RemoteHashFailure) {
        let sample = decoy.sample()
        try? await Task.sleep(for: sample.fetch)
        _ = try await verifier.verify(password, against: sample.shape)
    }

    /// Signs `{"sub","email","iss","iat","exp","jti","pur":"remote-login","ver"}` with the active
    /// RS256 key, on the worker pool.
    func mintToken(for user: RemoteUser) async throws(RemoteHashFailure) -> String {
        let now = clock()
        let claims = JWTClaims([
            ("sub", .string(user.email)), ("email", .string(user.email)), ("iss", .string(configuration.issuer)),
            ("iat", .int(now)), ("exp", .int(now + configuration.tokenTTL)),
            ("jti", .string(SecureRandom.identifier(byteCount: 16))),
            ("pur", .string(JWTPurpose.remoteLogin.rawValue)), ("ver", .int(user.tokenVersion)),
        ])
        let keys = self.keys
        do {
            return try await pool.run(.signing) { try keys.sign(claims, for: .remoteLogin) }
        } catch is WorkerPoolError {
            throw .busy
        } catch {
            throw .unforeseen(error)
        }
    }

    private func loginPage(_ request: HTTPRequest, _ fields: [String: String], _ failure: RemoteHashFailure)
        -> HTTPResponse
    {
        failurePage(request, failure, form: "login") { $0.loginEmail = fields["email"] ?? "" }
    }

    /// The token with its header and claims decoded and indented, for the page.
    static func decodedForDisplay(_ token: String) -> RemotePage.LoginResult {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        func decode(_ index: Int) -> String {
            guard parts.count == 3, let bytes = Base64URL.decode(String(parts[index])),
                let value = try? JSONValue.parse(bytes)
            else { return "(undecodable)" }
            return value.pretty()
        }
        return RemotePage.LoginResult(token: token, header: decode(0), claims: decode(1))
    }
}
