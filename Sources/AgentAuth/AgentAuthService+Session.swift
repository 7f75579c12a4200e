import AgentPoW
import AuthCrypto
import ComputePool
import Directory
import Foundation
import HTTP1
import JWT
import ServerKit

extension AgentAuthService {
    /// A verified challenge JWT: what step 1 learns from it.
    struct VerifiedChallenge: Sendable {
        let id: String
        let difficulty: Int
        let expiresAt: Int64
    }

    /// `POST /api/v1/session` (CONTRACT.md 1.3): the checks run in the contract's order so that nothing
    /// expensive runs for a request a cheap check can refuse.
    func session(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
        let now = clock()
        // 1. The challenge JWT.
        guard let challenge = verifyChallenge(request.bearerToken, now: now) else {
            return failure(.invalidChallenge)
        }
        // 2. The body's shape.
        let body: AgentSessionRequest
        switch AgentSessionRequest.parse(request.body) {
        case .success(let parsed): body = parsed
        case .failure(let error): return failure(error)
        }
        // 3. powHex: 128 hex characters with enough leading zero bits.
        guard let submitted = AgentProofOfWork.decodePowHex(body.powHex) else {
            return failure(.invalidPowHex)
        }
        guard AgentProofOfWork.meets(difficulty: challenge.difficulty, submitted) else {
            metrics.verified(.insufficientBits)
            return failure(.insufficientWork)
        }
        // 4. Single use: the ledger's primary key decides, also across restarts.
        do {
            let first = try await ledger.consume(
                id: challenge.id, surface: Self.ledgerSurface, expiresAt: challenge.expiresAt + Self.leeway)
            guard first else {
                metrics.verified(.replayed)
                return failure(.invalidChallenge)
            }
        } catch {
            return failure(unforeseen: error, context)
        }
        // 5. scrypt on the worker pool, compared in constant time.
        let salt = configuration.powSalt
        let digest: [UInt8]
        do {
            digest = try await pool.run(.proofOfWork) {
                try AgentProofOfWork.digest(challenge: challenge.id, nonce: body.nonce, salt: salt)
            }
        } catch WorkerPoolError.overloaded {
            metrics.verified(.overloaded)
            return failure(.overloaded)
        } catch {
            return failure(.internalError)
        }
        guard constantTimeEquals(digest, submitted) else {
            metrics.verified(.mismatch)
            return failure(.powMismatch)
        }
        metrics.verified(.valid)
        // 6. The account.
        switch body.intent {
        case .signup(let username): return await signup(username: username, now: now, context)
        case .login(let apiKey): return await login(apiKey: apiKey, now: now, context)
        }
    }

    /// Step 1: a valid, unexpired challenge JWT of this issuer, or nil.
    func verifyChallenge(_ token: String?, now: Int64) -> VerifiedChallenge? {
        guard let token,
            let claims = try? keys.verify(token, policy: challengePolicy, now: now, leeway: Self.leeway),
            let id = claims.jti, Self.isTokenID(id),
            let difficulty = claims["difficulty"]?.intValue,
            difficulty >= 0, difficulty <= Int64(AgentProofOfWork.maximumDifficulty),
            let expiresAt = claims.exp
        else { return nil }
        return VerifiedChallenge(id: id, difficulty: Int(difficulty), expiresAt: expiresAt)
    }

    /// Step 6 for a signup: username rules, then the insert (the UNIQUE constraint decides races).
    func signup(username: String, now: Int64, _ context: RequestContext) async -> HTTPResponse {
        switch AgentUsername.check(username) {
        case .invalid?: return failure(.invalidUsername)
        case .reserved?: return failure(.reservedUsername)
        case nil: break
        }
        let apiKey = AgentAPIKey.generate()
        let account = AgentAccount(id: UUID().uuidString.lowercased(), username: username)
        do {
            let created = try await accounts.create(
                id: account.id, username: username, apiKeyDigest: AgentAPIKey.digest(apiKey), now: now)
            guard created else { return failure(.usernameTaken) }
        } catch {
            return failure(unforeseen: error, context)
        }
        guard let token = sessionToken(for: account, now: now) else { return failure(.internalError) }
        metrics.signups.increment()
        let body = AgentJSON.object([
            ("apiKey", AgentJSON.string(apiKey)),
            ("inbox", AgentJSON.string(inbox(of: account))),
            ("username", AgentJSON.string(username)),
            ("_next", AgentJSON.array(nextSteps.signup)),
        ])
        return AgentResponse.json(.created, body, bearer: token)
    }

    /// Step 6 for a login: the live account whose key digest matches.
    func login(apiKey: String, now: Int64, _ context: RequestContext) async -> HTTPResponse {
        let account: AgentAccount?
        do {
            account = try await accounts.liveAccount(apiKeyDigest: AgentAPIKey.digest(apiKey))
        } catch {
            return failure(unforeseen: error, context)
        }
        guard let account else { return failure(.invalidAPIKey) }
        guard let token = sessionToken(for: account, now: now) else { return failure(.internalError) }
        // One indexed row, at most once per account and second, after the proof of work: a failed write costs the
        // listing a login time, never the login itself.
        if account.lastLoginAt.map({ $0 < now }) ?? true {
            do {
                try await accounts.recordLogin(id: account.id, now: now)
            } catch {
                onUnexpectedError?(error, context.requestID)
            }
        }
        metrics.logins.increment()
        let body = AgentJSON.object([
            ("inbox", AgentJSON.string(inbox(of: account))),
            ("_next", AgentJSON.array(nextSteps.login)),
        ])
        return AgentResponse.json(.ok, body, bearer: token)
    }

    /// A session JWT (HS256, `pur:"session"`) for `account`, or nil when signing fails.
    func sessionToken(for account: AgentAccount, now: Int64) -> String? {
        var claims = JWTClaims(
            issuer: configuration.issuer, subject: account.id, purpose: .session, issuedAt: now,
            ttl: configuration.sessionTTL, jti: Self.newTokenID())
        claims["inboxId"] = .string(inbox(of: account))
        return try? keys.sign(claims, for: .session)
    }

    /// `<username>@<inbox domain>` (``AgentInbox``).
    func inbox(of account: AgentAccount) -> String {
        AgentInbox.address(username: account.username, domain: configuration.inboxDomain)
    }

    /// Whether `id` has the shape of the ids this service mints: 32 lowercase hex characters.
    static func isTokenID(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
