import MailboxAccounts
import MailboxRoutes
import Audit
import CustomDomains
import HTTP1
import JSON
import JWT
import ServerKit
import Storage

/// Mail.td Pro users: sign-in, profile, and the accounts they own (listed, deleted, their passwords reset).
struct ProUsersController: MailboxController {
    let surface: MailboxService

    /// Adds the resource's routes to `router`.
    func register(on router: inout ContextRouter) {
        let limit = MailboxService.bodyLimit
        router.add(.POST, "/api/user/login", bodyLimit: limit, deferred(.general, proLogin))
        router.add(.GET, "/api/user/me", deferred(.general, proProfile))
        router.add(.GET, "/api/user/accounts", deferred(.general, proAccounts))
        router.add(.DELETE, "/api/user/accounts/{id}", deferred(.general, proDeleteAccount))
        router.add(
            .PUT, "/api/user/accounts/{id}/reset-password", bodyLimit: limit, deferred(.general, proResetPassword))
    }

    /// `POST /api/user/login`: a Pro JWT; one answer whether the email exists or not, and for a Pro user whose password
    /// asks a second step under the policy (a password alone is not enough for them: they make `tm_pro_` tokens in
    /// the dashboard).
    func proLogin(_ call: MailboxCall) async throws -> HTTPResponse {
        let body = try MailboxJSON.object(call.request.body)
        let email = (try? MailboxJSON.string(body, "email")) ?? nil
        let password = (try? MailboxJSON.string(body, "password")) ?? nil
        guard let password, PasswordPolicy.isPlausible(password) else { throw MailboxError.invalidCredentials }
        let found = try await email.flatMap(MailboxAccountService.normalizedProEmail).asyncFlatMap { try await store.proUser(email: $0) }
        guard let user = try await surface.accounts.activeProUser(found, provenBy: password),
            try await !surface.proPasswordAsksSecondStep(user.id)
        else { throw MailboxError.invalidCredentials }
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
        return try await AccountsController(surface: surface).delete(authorizer.account(call.id, for: .proUser(user)))
    }

    /// `PUT /api/user/accounts/{id}/reset-password`: for the Pro user's own accounts (others 404).
    func proResetPassword(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        return try await AccountsController(surface: surface).reset(authorizer.account(call.id, for: .proUser(user)), call)
    }
}
