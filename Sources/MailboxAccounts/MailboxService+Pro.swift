import Audit
import CustomDomains
import HTTP1
import JSON
import JWT
import Storage

extension MailboxService {
    /// `POST /api/user/login`: a Pro JWT; one answer whether the email exists or not.
    func proLogin(_ call: MailboxCall) async throws -> HTTPResponse {
        let body = try MailboxJSON.object(call.request.body)
        let email = (try? MailboxJSON.string(body, "email")) ?? nil
        let password = (try? MailboxJSON.string(body, "password")) ?? nil
        guard let password, PasswordPolicy.isPlausible(password) else { throw MailboxError.invalidCredentials }
        let user = try await email.asyncFlatMap { try await store.proUser(email: $0.lowercased()) }
        guard try await hasher.verify(password, against: user?.passwordHash), let user, user.status == "active" else {
            throw MailboxError.invalidCredentials
        }
        let token = try tokens.proToken(for: user, now: call.now)
        return MailboxJSON.response(
            .ok,
            [
                ("user_id", .string(user.id)), ("email", .string(user.email)), ("plan", .string("pro")),
                ("status", .string(user.status)), ("token", .string(token)),
            ])
    }

    /// `GET /api/user/me`. `ops_used` and `ops_limit` (Mail.td's monthly operation quota, which its v2 SDK reads)
    /// are 0: Postern meters no operations; the limit it enforces is `max_accounts`.
    func proProfile(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        let count = try await store.accountCount(ownerID: user.id)
        let domainCount = try await customDomains.count(of: .proUser(user.id))
        return MailboxJSON.response(
            .ok,
            [
                ("id", .string(user.id)), ("email", .string(user.email)), ("plan", .string("pro")),
                ("role", .string("user")), ("status", .string(user.status)), ("max_accounts", .int(user.maxAccounts)),
                ("max_domains", .int(user.maxDomains)), ("account_count", .int(count)), ("domain_count", .int(domainCount)),
                ("ops_used", .int(0)), ("ops_limit", .int(0)), ("created_at", MailboxJSON.time(user.createdAt)), ("downgraded", .bool(false)),
            ])
    }

    /// `GET /api/user/accounts[?limit=N&cursor=C]`: pages of at most 100 (default 100), oldest first;
    /// `next_cursor` is null on the last page.
    func proAccounts(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        let limit = try call.integerQuery("limit", in: 1...100, fallback: 100)
        var cursor: (Int64, String)?
        if let text = call.request.queryItem("cursor"), !text.isEmpty {
            // Split by bytes, not characters: `_` followed by a combining scalar is one Character.
            let parts = text.utf8.split(separator: UInt8(ascii: "_"), maxSplits: 1)
            guard parts.count == 2, let createdAt = Int64(String(decoding: parts[0], as: UTF8.self)) else {
                throw MailboxError.invalidRequest
            }
            cursor = (createdAt, String(decoding: parts[1], as: UTF8.self))
        }
        let page = try await store.accounts(ownerID: user.id, after: cursor, limit: limit + 1)
        let shown = page.prefix(limit)
        let next: JSONValue =
            page.count > limit ? shown.last.map { .string("\($0.createdAt)_\($0.id)") } ?? .null : .null
        let list: [JSONValue] = shown.map { account in
            .object([
                ("id", .string(account.id)), ("address", .string(account.address)), ("quota", .int(account.quota)),
                ("used", .int(account.used)), ("created_at", MailboxJSON.time(account.createdAt)),
            ])
        }
        return MailboxJSON.response(.ok, [("accounts", .array(list)), ("next_cursor", next)])
    }

    /// `DELETE /api/user/accounts/{id}`: for the Pro user's own accounts (others 404).
    func proDeleteAccount(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        return try await delete(authorizer.account(call.id, for: .proUser(user)))
    }

    /// `PUT /api/user/accounts/{id}/reset-password`: for the Pro user's own accounts (others 404).
    func proResetPassword(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        return try await reset(authorizer.account(call.id, for: .proUser(user)), call)
    }

    /// `POST /api/user/tokens {"name"}`: a new `tm_pro_` token, shown once. `name` is optional (default
    /// `"api"`), at most 100 characters.
    func createAPIToken(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        var name = "api"
        if !call.request.body.isEmpty {
            let body = try MailboxJSON.object(call.request.body)
            if let given = try MailboxJSON.string(body, "name"), !given.isEmpty { name = given }
        }
        guard name.count <= 100 else { throw MailboxError.invalidRequest }
        let (token, digest) = MailboxTokens.newAPIToken()
        let record = ProTokenRecord(
            id: MailboxIdentifiers.uuid(), userID: user.id, name: name, digest: digest, createdAt: call.now)
        try await store.insert(record)
        await recordPro(user.id, .proTokenCreated, target: record.id, call)
        return MailboxJSON.response(
            .created, [("id", .string(record.id)), ("name", .string(record.name)), ("token", .string(token))])
    }

    /// `GET /api/user/tokens`: every token of the user, revoked ones too, without the secrets.
    func listAPITokens(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        let list: [JSONValue] = try await store.proTokens(userID: user.id).map { token in
            .object([
                ("id", .string(token.id)), ("name", .string(token.name)),
                ("last_used_at", MailboxJSON.time(token.lastUsedAt)), ("created_at", MailboxJSON.time(token.createdAt)),
                ("revoked_at", MailboxJSON.time(token.revokedAt)),
            ])
        }
        return MailboxJSON.response(.ok, [("tokens", .array(list))])
    }

    /// `DELETE /api/user/tokens/{id}`: revoked at once (the next request with it gets 401); 404 when the
    /// user has no such token; revoking twice is 204 both times.
    func revokeAPIToken(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        guard MailboxIdentifiers.isUUID(call.id) else { throw MailboxError.notFound }
        let result = try await store.revokeProToken(id: call.id, userID: user.id, now: call.now)
        guard result.found else { throw MailboxError.notFound }
        if result.revoked { await recordPro(user.id, .proTokenRevoked, target: call.id, call) }
        return MailboxJSON.noContent()
    }

    /// A Pro user's change on the operator's trail (no owner: Pro users have no `/owner` page). `target` is an id or a
    /// domain, never a token.
    func recordPro(_ userID: String, _ action: AuditAction, target: String, _ call: MailboxCall) async {
        await audit.record {
            AuditEvent(
                time: $0, actorKind: .pro, actorID: userID, ownerID: nil, action: action, target: target,
                clientAddress: call.context.clientAddress?.description)
        }
    }
}
