import HTTP1
import JSON
import MailboxAccounts

/// Domains, accounts and tokens: mail.tm's `/domains`, `/accounts`, `/token` and `/me` over Mail.td's accounts.
extension MailTMService {
    /// `GET /domains[?page=N]`: the surface's domains, 30 a page.
    func domainList(_ call: Call) async throws -> HTTPResponse {
        let page = try MailTMPage(
            query: call.request.queryItem("page"), size: configuration.itemsPerPage, maximum: configuration.maximumPage)
        let members = domains.dropFirst(min(page.offset, domains.count)).prefix(page.size).map {
            MailTMJSON.domain($0, since: startedAt)
        }
        return Self.answer(
            .ok,
            MailTMJSON.collection(Array(members), type: "Domain", path: "/domains", total: domains.count, page: page))
    }

    /// `GET /domains/{id}`: 404 for an id none of the domains has.
    func domainDetail(_ call: Call) async throws -> HTTPResponse {
        guard let domain = domains.first(where: { MailTMJSON.domainID($0) == call.id }) else {
            throw MailTMError.notFound
        }
        return Self.answer(.ok, MailTMJSON.domain(domain, since: startedAt))
    }

    /// `POST /accounts {"address", "password"}`: 201 and the Account. 422 for a missing, malformed or taken address,
    /// a domain not served here, a password under 6 characters or over 4 KiB; 400 for a body that is not an object
    /// of strings.
    func createAccount(_ call: Call) async throws -> HTTPResponse {
        let body = try Self.body(call.request)
        guard let address = try Self.string(body, "address"), !address.isEmpty else {
            throw MailTMError.violation(property: "address", message: "This value should not be blank.")
        }
        guard let password = try Self.string(body, "password"), !password.isEmpty else {
            throw MailTMError.violation(property: "password", message: "This value should not be blank.")
        }
        do {
            let (account, _) = try await accounts.createFreeAccount(
                address: address, password: password, on: domains, now: call.now)
            return Self.answer(.created, MailTMJSON.account(account))
        } catch let error as MailboxError {
            throw Self.violation(error) ?? error
        }
    }

    /// The 422 a refusal of the account's owner stands for; nil for any other error.
    static func violation(_ error: MailboxError) -> MailTMError? {
        switch error {
        case .invalidAddress: .violation(property: "address", message: "This value is not a valid email address.")
        case .invalidDomain: .violation(property: "address", message: "This domain is not served here.")
        case .addressTaken: .violation(property: "address", message: "This value is already used.")
        case .passwordTooShort:
            .violation(property: "password", message: "This value is too short. It should have 6 characters or more.")
        case .passwordTooLong:
            .violation(property: "password", message: "This value is too long. It should have 4096 bytes or less.")
        default: nil
        }
    }

    /// `POST /token {"address", "password"}`: `{"token", "id"}`, a mailbox token of the account (the Mail.td
    /// surface's, good on both APIs); 401 `Invalid credentials.` for anything that opens nothing.
    func token(_ call: Call) async throws -> HTTPResponse {
        let body = try Self.body(call.request)
        guard let address = try Self.string(body, "address"), let password = try Self.string(body, "password") else {
            throw MailTMError.badRequest("The keys \"address\" and \"password\" must be provided.")
        }
        guard let (account, token) = try await accounts.signIn(address: address, password: password, now: call.now)
        else { throw MailTMError.invalidCredentials }
        return Self.answer(.ok, .object([("token", .string(token)), ("id", .string(account.id))]))
    }

    /// `GET /me`: the bearer's Account.
    func me(_ call: Call) async throws -> HTTPResponse {
        Self.answer(.ok, MailTMJSON.account(try await account(call)))
    }

    /// `GET /accounts/{id}`: the bearer's own Account; 404 for any other id (another account's included: a token
    /// reaches only its own, and whether another exists is not told).
    func accountDetail(_ call: Call) async throws -> HTTPResponse {
        let account = try await account(call)
        guard account.id == call.id else { throw MailTMError.notFound }
        return Self.answer(.ok, MailTMJSON.account(account))
    }

    /// `DELETE /accounts/{id}`: 204, the account and its tokens gone; 404 for any id but the bearer's.
    func deleteAccount(_ call: Call) async throws -> HTTPResponse {
        let account = try await account(call)
        guard account.id == call.id, try await accounts.deleteAccount(id: account.id) else {
            throw MailTMError.notFound
        }
        return HTTPResponse(status: .noContent, headers: ["Cache-Control": "no-store"])
    }
}
