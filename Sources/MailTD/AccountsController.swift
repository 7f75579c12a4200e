import MailboxAccounts
import MailboxRoutes
import CustomDomains
import HTTP1
import JSON
import JWT
import ServerKit

/// Mail.td's accounts: the domain list, challenges, creation, sign-in (`POST /api/token`), and an account's info,
/// deletion and password reset by its own token or its Pro owner's.
struct AccountsController: MailboxController {
    let surface: MailboxService

    /// Adds the resource's routes to `router`.
    func register(on router: inout ContextRouter) {
        let limit = MailboxService.bodyLimit
        router.add(.GET, "/api/domains", immediate(.general, domains))
        router.add(.GET, "/api/challenge", immediate(.general, challenge))
        router.add(.POST, "/api/accounts", bodyLimit: limit, deferred(.accountCreation, createAccount))
        router.add(.POST, "/api/token", bodyLimit: limit, deferred(.general, signIn))
        router.add(.GET, "/api/accounts/{id}", surface.loopRead(.general, onLoop: accountInfoOnLoop, accountInfo))
        router.add(.DELETE, "/api/accounts/{id}", deferred(.general, deleteAccount))
        router.add(.PUT, "/api/accounts/{id}/reset-password", bodyLimit: limit, deferred(.general, resetPassword))
    }

    /// `GET /api/domains`: the configured domains, public ones first; Pro-only ones say so.
    func domains(_ call: MailboxCall) -> HTTPResponse {
        let all = configuration.domains.map { ($0, false) } + configuration.proDomains.map { ($0, true) }
        let list: [JSONValue] = all.enumerated().map { index, entry in
            var pairs: [(String, JSONValue)] = [
                ("id", .string(MailboxIdentifiers.domainID(entry.0))), ("domain", .string(entry.0)),
                ("default", .bool(index == 0 && !entry.1)), ("sort_order", .int(Int64(index))),
            ]
            if entry.1 { pairs.append(("pro_only", .bool(true))) }
            return .object(pairs)
        }
        return MailboxJSON.response(.ok, [("domains", .array(list))])
    }

    /// `GET /api/challenge`: a fresh stateless challenge.
    func challenge(_ call: MailboxCall) -> HTTPResponse {
        let challenge = challenges.issue(now: call.now)
        return MailboxJSON.response(
            .ok,
            [
                ("id", .string(challenge.id)), ("salt", .string(challenge.salt)),
                ("difficulty", .int(Int64(challenge.difficulty))), ("expires_at", .int(challenge.expiresAt)),
            ])
    }

    /// `POST /api/accounts`: 400s first, then the proof or the Pro limit (403), then uniqueness (409).
    func createAccount(_ call: MailboxCall) async throws -> HTTPResponse {
        var owner: ProUserRecord?
        switch call.bearer {
        case .anonymous, .mailbox: owner = nil
        case .invalid: throw MailboxError.invalidOrExpiredToken
        case .pro, .apiToken, .verifiedAPIToken: owner = try await authorizer.requireProUser(call.bearer)
        }
        let body = try MailboxJSON.object(call.request.body)
        guard let text = try? MailboxJSON.string(body, "address"), let address = MailboxAddress(text) else {
            throw MailboxError.invalidAddress
        }
        let proDomain = configuration.proDomains.contains(address.domain)
        if !configuration.domains.contains(address.domain), !(proDomain && owner != nil) {
            // A Pro user's own verified custom domain (Mail.td: mailboxes on it are created like any other).
            guard let owner, try await customDomains.verifiedClaim(on: address.domain)?.holder == .proUser(owner.id)
            else { throw MailboxError.invalidDomain }
            // An owner's inbox left at this address (the domain was theirs before) keeps its mail under it.
            if try await customDomains.isAddressHeldElsewhere(address.description, than: .proUser(owner.id)) {
                throw MailboxError.addressTaken
            }
        }
        let credential = try MailboxCredential.readNew(body)
        let proof = try body["pow"].map(Self.proof)
        if let owner {
            guard try await store.accountCount(ownerID: owner.id) < owner.maxAccounts else {
                throw MailboxError.accountLimitReached
            }
        } else if let proof {
            try await checkProof(proof, now: call.now)
        } else if configuration.powRequired {
            throw MailboxError.proofOfWorkRequired
        }
        let (record, token) = try await accounts.createAccount(
            at: address, credential: credential, owner: owner, now: call.now)
        return MailboxJSON.response(
            .created, [("id", .string(record.id)), ("address", .string(record.address)), ("token", .string(token))])
    }

    /// A `pow` member's challenge id and nonce (a number nonce as its decimal text); `.proofOfWorkRequired` when
    /// it is not `{"id": string, "nonce": string or integer}`, whoever sent it.
    private static func proof(_ value: RequestBody.Value) throws(MailboxError) -> (id: String, nonce: String) {
        guard let pow = value.members, case .string(let id)? = pow["id"] else { throw .proofOfWorkRequired }
        switch pow["nonce"] {
        case .string(let text)?: return (id, text)
        case .integer(let number)?: return (id, String(number))
        default: throw .proofOfWorkRequired
        }
    }

    /// Checks a free creation's proof and consumes its challenge: 403 when the challenge is unknown, expired or
    /// used, or the nonce does not solve it.
    private func checkProof(_ proof: (id: String, nonce: String), now: Int64) async throws {
        let (id, nonce) = proof
        let opened = try challenges.open(id: id, now: now)
        let valid = ProofOfWork.isValid(salt: opened.salt, nonce: nonce, difficulty: configuration.powDifficulty)
        guard valid else {
            metrics.verified(.insufficientBits)
            throw MailboxError.invalidProofOfWork
        }
        guard try await ledger.consume(id: id.lowercased(), surface: MailboxService.ledgerSurface, expiresAt: opened.expiresAt)
        else {
            metrics.verified(.replayed)
            throw MailboxError.challengeNotFound
        }
        metrics.verified(.valid)
    }

    /// `POST /api/token` with a v1 `password` or a v2 `auth_key`: one answer, and the same cost whether the
    /// address exists or not (a password costs one `auth_key` derivation either way).
    func signIn(_ call: MailboxCall) async throws -> HTTPResponse {
        let body = try MailboxJSON.object(call.request.body)
        let text = (try? MailboxJSON.string(body, "address")) ?? nil
        let credential: MailboxCredential
        switch try MailboxCredential.read(body) {
        case .password(let password)? where PasswordPolicy.isPlausible(password): credential = .password(password)
        case .authKey(let key)?: credential = .authKey(key)
        default: throw MailboxError.invalidCredentials
        }
        guard let account = try await surface.accounts.account(signingIn: text, with: credential) else {
            throw MailboxError.invalidCredentials
        }
        let token = try tokens.mailboxToken(for: account, now: call.now)
        return MailboxJSON.response(
            .ok, [("id", .string(account.id)), ("address", .string(account.address)), ("token", .string(token))])
    }

    /// `GET /api/accounts/{id}`.
    func accountInfo(_ call: MailboxCall) async throws -> HTTPResponse {
        let principal = try await authorizer.requirePrincipal(call.bearer)
        return Self.info(try await authorizer.account(call.id, for: principal))
    }

    /// `GET /api/accounts/{id}` with the account's own token, answered from the event loop
    /// (``MailboxService/loopRead(_:onLoop:_:)``): the same read and checks as ``accountInfo(_:)``.
    func accountInfoOnLoop(
        _ call: MailboxCall, subject: String, version: Int64, answer: @escaping MailboxService.LoopAnswer
    ) -> Bool {
        authorizer.account(call.id, mailboxSubject: subject, version: version) { read in answer(read.map(Self.info)) }
    }

    /// An account as Mail.td shows it.
    private static func info(_ account: MailboxAccountRecord) -> HTTPResponse {
        MailboxJSON.response(
            .ok,
            [
                ("id", .string(account.id)), ("address", .string(account.address)), ("role", .string("user")),
                ("quota", .int(account.quota)), ("used", .int(account.used)),
                ("created_at", MailboxJSON.time(account.createdAt)),
            ])
    }

    /// `DELETE /api/accounts/{id}`: the row goes, so every token of the account fails at once.
    func deleteAccount(_ call: MailboxCall) async throws -> HTTPResponse {
        let principal = try await authorizer.requirePrincipal(call.bearer)
        return try await delete(authorizer.account(call.id, for: principal))
    }

    /// `PUT /api/accounts/{id}/reset-password`: new hash, token epoch bumped.
    func resetPassword(_ call: MailboxCall) async throws -> HTTPResponse {
        let principal = try await authorizer.requirePrincipal(call.bearer)
        return try await reset(authorizer.account(call.id, for: principal), call)
    }

    func delete(_ account: MailboxAccountRecord) async throws -> HTTPResponse {
        guard try await store.deleteAccount(id: account.id) else { throw MailboxError.notFound }
        return MailboxJSON.noContent()
    }

    func reset(_ account: MailboxAccountRecord, _ call: MailboxCall) async throws -> HTTPResponse {
        let credential = try MailboxCredential.readNew(MailboxJSON.object(call.request.body))
        let verifier = try await credentials.verifier(for: credential, address: account.address)
        guard try await store.resetPassword(accountID: account.id, verifier: verifier) else {
            throw MailboxError.notFound
        }
        return MailboxJSON.response(.ok, [("message", .string("password_reset"))])
    }
}
