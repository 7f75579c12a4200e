import PosternTestSupport
import ServerKit
import HTTP1
import JWT
import Testing
import Time

@testable import MailboxAccounts

@Suite("Mailbox Pro: login, profile, accounts, API tokens, access rules")
struct MailboxProTests {
    @Test(
        "POST /api/user/login: Pro JWT; wrong password and unknown email get the same 401",
        arguments: StorageBackend.allCases)
    func login(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let summary = try await harness.service.accounts.createProUser(
            email: "Owner@Example.com", password: "propassword", maxAccounts: 3)
        #expect(summary.email == "owner@example.com")
        #expect(summary.maxAccounts == 3)
        let ok = await harness.send(
            .POST, "/api/user/login", json: #"{"email":"owner@example.com","password":"propassword"}"#)
        #expect(ok.status == 200)
        #expect(ok.string("user_id") == summary.id)
        #expect(ok.string("email") == "owner@example.com")
        #expect(ok.string("plan") == "pro")
        #expect(ok.string("status") == "active")
        let claims = try harness.keys.verify(
            ok.string("token"), policy: harness.service.tokens.policy(.pro), now: harness.clock.seconds)
        #expect(claims.sub == summary.id)
        #expect(claims.exp == harness.clock.seconds + 7 * 24 * 3600)
        let wrong = await harness.send(
            .POST, "/api/user/login", json: #"{"email":"owner@example.com","password":"nope-nope"}"#)
        let unknown = await harness.send(
            .POST, "/api/user/login", json: #"{"email":"ghost@example.com","password":"nope-nope"}"#)
        for response in [wrong, unknown] {
            #expect(response.status == 401)
            #expect(response.body == Array(#"{"error":"invalid_credentials"}"#.utf8))
        }
        // A Pro JWT is not a mailbox token and a mailbox token is not a Pro one.
        #expect(
            await harness.send(.POST, "/api/token", json: #"{"address":"owner@example.com","password":"propassword"}"#)
                .status == 401)
    }

    @Test(
        "GET /api/user/me reports the Pro user; anything but a Pro bearer is a 401", arguments: StorageBackend.allCases)
    func profile(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let token = try await harness.proToken(email: "me@example.com", maxAccounts: 5)
        _ = try await harness.createProAccount("p1@pro.localhost", bearer: token)
        let me = await harness.send(.GET, "/api/user/me", bearer: token)
        #expect(me.status == 200)
        #expect(me.string("email") == "me@example.com")
        #expect(MailboxIdentifiers.isUUID(me.string("id")))
        #expect(me.string("plan") == "pro")
        #expect(me.string("role") == "user")
        #expect(me.string("status") == "active")
        #expect(me["max_accounts"] == .int(5))
        #expect(me["max_domains"] == .int(5), "the contract's 5 custom domains unless the operator says otherwise")
        #expect(me["account_count"] == .int(1))
        #expect(me["domain_count"] == .int(0))
        #expect(me["downgraded"] == .bool(false))
        #expect(me.string("created_at") == RFC3339.format(harness.clock.seconds))
        #expect(await harness.send(.GET, "/api/user/me").error == "invalid_or_expired_token")
        let free = try await harness.createAccount("free@mail.localhost")
        #expect(await harness.send(.GET, "/api/user/me", bearer: free.token).status == 401)
        #expect(await harness.send(.GET, "/api/user/accounts", bearer: free.token).status == 401)
        #expect(await harness.send(.GET, "/api/user/tokens", bearer: free.token).status == 401)
        #expect(await harness.send(.POST, "/api/user/tokens", json: "{}", bearer: free.token).status == 401)
    }

    @Test(
        "a Pro bearer creates accounts without proof, on Pro domains, with the Pro quota, up to max_accounts",
        arguments: StorageBackend.allCases)
    func proCreation(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let token = try await harness.proToken(email: "limit@example.com", maxAccounts: 2)
        let first = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "One@Pro.Localhost", pow: nil),
            bearer: token)
        #expect(first.status == 201)
        #expect(first.string("address") == "one@pro.localhost")
        let info = await harness.send(.GET, "/api/accounts/\(first.string("id"))", bearer: token)
        #expect(info["quota"] == .int(1_073_741_824))
        // The account's own mailbox token works too.
        #expect(
            await harness.send(.GET, "/api/accounts/\(first.string("id"))", bearer: first.string("token")).status == 200
        )
        _ = try await harness.createProAccount("two@mail.localhost", bearer: token)
        let third = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "three@pro.localhost", pow: nil),
            bearer: token)
        #expect(third.status == 403)
        #expect(third.error == "account_limit_reached")
        // 400s still come first.
        #expect(
            await harness.send(
                .POST, "/api/accounts", json: MailboxHarness.createBody(address: "x@nowhere.test", pow: nil),
                bearer: token
            ).error
                == "invalid_domain")
        // Deleting one frees a place.
        #expect(await harness.send(.DELETE, "/api/user/accounts/\(first.string("id"))", bearer: token).status == 204)
        #expect(
            await harness.send(
                .POST, "/api/accounts", json: MailboxHarness.createBody(address: "three@pro.localhost", pow: nil),
                bearer: token
            ).status
                == 201)
        let taken = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "two@mail.localhost", pow: nil),
            bearer: token)
        #expect(taken.status == 403)
    }

    @Test(
        "a Pro bearer's well-formed pow is ignored, any 64-bit nonce; one past 64 bits is outside the schema and refused",
        arguments: StorageBackend.allCases)
    func proProofBounds(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let token = try await harness.proToken(email: "bounds@example.com", maxAccounts: 5)
        func create(_ address: String, nonce: String) async -> TestResponse {
            await harness.send(
                .POST, "/api/accounts",
                json: #"{"address":"\#(address)@mail.localhost","password":"secret1","pow":{"id":"","nonce":\#(nonce)}}"#,
                bearer: token)
        }
        for (k, nonce) in ["-9223372036854775808", "9223372036854775807", "-104823", #""any text""#].enumerated() {
            #expect(await create("fits\(k)", nonce: nonce).status == 201, "nonce \(nonce)")
        }
        let past = await create("past", nonce: "-730926120727500394155697242112")
        #expect(past.status == 400 && past.error == "proof of work required")
    }

    @Test(
        "GET /api/user/accounts lists the user's accounts only, with a cursor when there are more",
        arguments: StorageBackend.allCases)
    func accountList(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let token = try await harness.proToken(email: "list@example.com")
        let other = try await harness.proToken(email: "other@example.com")
        var ids: [String] = []
        for index in 0..<3 {
            ids.append(try await harness.createProAccount("list\(index)@mail.localhost", bearer: token))
            harness.clock.advance(seconds: 1)
        }
        _ = try await harness.createProAccount("theirs@mail.localhost", bearer: other)
        _ = try await harness.createAccount("free@mail.localhost")
        let all = await harness.send(.GET, "/api/user/accounts", bearer: token)
        #expect(all.status == 200)
        #expect(all["next_cursor"] == .null)
        let accounts = try #require(all["accounts"]?.arrayValue)
        #expect(accounts.compactMap { $0["id"]?.stringValue } == ids)
        #expect(accounts[0]["address"]?.stringValue == "list0@mail.localhost")
        #expect(accounts[0]["quota"] == .int(1_073_741_824))
        #expect(accounts[0]["used"] == .int(0))
        #expect(accounts[0]["created_at"]?.stringValue?.hasSuffix("Z") == true)
        let page1 = await harness.send(.GET, "/api/user/accounts?limit=2", bearer: token)
        #expect(page1["accounts"]?.arrayValue?.count == 2)
        let cursor = try #require(page1["next_cursor"]?.stringValue)
        let page2 = await harness.send(.GET, "/api/user/accounts?limit=2&cursor=\(cursor)", bearer: token)
        // `_` then a combining scalar (U+1F3FB) is one Character but still the cursor's separator.
        #expect(await harness.send(.GET, "/api/user/accounts?cursor=1_%F0%9F%8F%BBx", bearer: token).status == 200)
        for bad in ["limit=0", "limit=101", "limit=ten", "limit=", "cursor=nounderscore"] {
            #expect(await harness.send(.GET, "/api/user/accounts?\(bad)", bearer: token).status == 400, "\(bad)")
        }
        #expect(page2["accounts"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [ids[2]])
        #expect(page2["next_cursor"] == .null)
        #expect(await harness.send(.GET, "/api/user/accounts?cursor=bogus", bearer: token).status == 400)
    }

    @Test(
        "a Pro token reaches its own accounts; others (free or another user's) are 404",
        arguments: StorageBackend.allCases)
    func proAccess(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let token = try await harness.proToken(email: "a@example.com")
        let other = try await harness.proToken(email: "b@example.com")
        let mine = try await harness.createProAccount("mine@mail.localhost", bearer: token)
        let theirs = try await harness.createProAccount("theirs@mail.localhost", bearer: other)
        let free = try await harness.createAccount("free@mail.localhost")
        #expect(await harness.send(.GET, "/api/accounts/\(mine)", bearer: token).status == 200)
        for id in [theirs, free.id, "not-a-uuid", MailboxIdentifiers.uuid()] {
            for (method, path, json) in [
                (HTTPMethodName.get, "/api/accounts/\(id)", nil as String?),
                (.delete, "/api/accounts/\(id)", nil), (.delete, "/api/user/accounts/\(id)", nil),
                (.put, "/api/accounts/\(id)/reset-password", #"{"password":"newpass1"}"#),
                (.put, "/api/user/accounts/\(id)/reset-password", #"{"password":"newpass1"}"#),
            ] {
                let response = await harness.send(method.method, path, json: json, bearer: token)
                #expect(response.status == 404)
                #expect(response.error == "not_found")
            }
        }
        // The mailbox token of a Pro-owned account cannot use the /api/user forms.
        let login = await harness.send(
            .POST, "/api/token", json: #"{"address":"mine@mail.localhost","password":"secret1"}"#)
        #expect(await harness.send(.DELETE, "/api/user/accounts/\(mine)", bearer: login.string("token")).status == 401)
        #expect(await harness.send(.DELETE, "/api/user/accounts/\(mine)").status == 401)
    }

    @Test(
        "a Pro reset through /api/user/accounts/{id} ends the account's earlier tokens",
        arguments: StorageBackend.allCases)
    func proReset(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let token = try await harness.proToken(email: "reset@example.com")
        let created = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "r@mail.localhost", pow: nil),
            bearer: token)
        let id = created.string("id")
        let short = await harness.send(
            .PUT, "/api/user/accounts/\(id)/reset-password", json: #"{"password":"1"}"#, bearer: token)
        #expect(short.error == "password_too_short")
        let reset = await harness.send(
            .PUT, "/api/user/accounts/\(id)/reset-password", json: #"{"password":"newpass1"}"#, bearer: token)
        #expect(reset.status == 200)
        #expect(reset.string("message") == "password_reset")
        #expect(await harness.send(.GET, "/api/accounts/\(id)", bearer: created.string("token")).status == 401)
        #expect(await harness.send(.GET, "/api/accounts/\(id)", bearer: token).status == 200)
        #expect(
            await harness.send(.POST, "/api/token", json: #"{"address":"r@mail.localhost","password":"newpass1"}"#)
                .status == 200)
        #expect(
            await harness.send(
                .PUT, "/api/accounts/\(id)/reset-password", json: #"{"password":"another1"}"#, bearer: token
            ).status == 200)
    }

    @Test(
        "Pro API tokens: created once, usable, listed with last use, revoked at once",
        arguments: StorageBackend.allCases)
    func apiTokens(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let jwt = try await harness.proToken(email: "tokens@example.com")
        let other = try await harness.proToken(email: "else@example.com")
        let created = await harness.send(.POST, "/api/user/tokens", json: #"{"name":"ci"}"#, bearer: jwt)
        #expect(created.status == 201)
        #expect(created.string("name") == "ci")
        let apiToken = created.string("token")
        #expect(apiToken.hasPrefix("tm_pro_"))
        #expect(apiToken.count == 7 + 43)
        let tokenID = created.string("id")
        #expect(MailboxIdentifiers.isUUID(tokenID))

        harness.clock.advance(seconds: 5)
        let me = await harness.send(.GET, "/api/user/me", bearer: apiToken)
        #expect(me.status == 200)
        #expect(me.string("email") == "tokens@example.com")
        let account = try await harness.createProAccount("api@mail.localhost", bearer: apiToken)
        #expect(await harness.send(.GET, "/api/accounts/\(account)", bearer: apiToken).status == 200)

        let list = await harness.send(.GET, "/api/user/tokens", bearer: jwt)
        #expect(list.status == 200)
        let tokens = try #require(list["tokens"]?.arrayValue)
        #expect(tokens.count == 1)
        #expect(tokens[0]["id"]?.stringValue == tokenID)
        #expect(tokens[0]["name"]?.stringValue == "ci")
        #expect(tokens[0]["last_used_at"]?.stringValue == RFC3339.format(harness.clock.seconds))
        #expect(tokens[0]["revoked_at"] == .null)
        #expect(tokens[0]["token"] == nil)
        #expect(await harness.send(.POST, "/api/user/tokens", bearer: jwt).string("name") == "api")

        let foreign = await harness.send(.DELETE, "/api/user/tokens/\(tokenID)", bearer: other)
        #expect(foreign.status == 404)
        #expect(foreign.error == "not_found")
        #expect(await harness.send(.DELETE, "/api/user/tokens/\(MailboxIdentifiers.uuid())", bearer: jwt).status == 404)
        #expect(await harness.send(.DELETE, "/api/user/tokens/\(tokenID)").status == 401)
        #expect(await harness.send(.GET, "/api/user/me", bearer: apiToken).status == 200)
        #expect(await harness.send(.DELETE, "/api/user/tokens/\(tokenID)", bearer: apiToken).status == 204)
        let revoked = await harness.send(.GET, "/api/user/me", bearer: apiToken)
        #expect(revoked.status == 401)
        #expect(revoked.error == "invalid_or_expired_token")
        #expect(await harness.send(.GET, "/api/accounts/\(account)", bearer: apiToken).status == 401)
        #expect(await harness.send(.DELETE, "/api/user/tokens/\(tokenID)", bearer: jwt).status == 204)
        let after = await harness.send(.GET, "/api/user/tokens", bearer: jwt)
        let revokedEntry = try #require(after["tokens"]?.arrayValue?.first { $0["id"]?.stringValue == tokenID })
        #expect(revokedEntry["revoked_at"]?.stringValue == RFC3339.format(harness.clock.seconds))
        // The JWT of the same user still works.
        #expect(await harness.send(.GET, "/api/user/me", bearer: jwt).status == 200)
    }

    @Test(
        "a sandbox SMTP credential names its owner until its API token is revoked; never the token itself",
        arguments: StorageBackend.allCases)
    func sandboxCredentialRevoked(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let jwt = try await harness.proToken(email: "smtp@example.com")
        let created = await harness.send(.POST, "/api/user/tokens", json: #"{"name":"smtp"}"#, bearer: jwt)
        let (apiToken, tokenID) = (created.string("token"), created.string("id"))
        #expect(try await harness.sandbox.sandboxCredential(apiToken: "tm_pro_wrong") == nil)
        #expect(try await harness.sandbox.sandboxCredential(apiToken: jwt) == nil)
        let credential = try #require(try await harness.sandbox.sandboxCredential(apiToken: apiToken))
        #expect(credential == tokenID)
        let owner = try #require(try await harness.sandbox.sandboxOwner(credential: credential))
        #expect(await harness.send(.GET, "/api/user/me", bearer: jwt).string("id") == owner)
        #expect(await harness.send(.DELETE, "/api/user/tokens/\(tokenID)", bearer: jwt).status == 204)
        #expect(try await harness.sandbox.sandboxOwner(credential: credential) == nil)
        #expect(try await harness.sandbox.sandboxCredential(apiToken: apiToken) == nil)
        #expect(try await harness.sandbox.sandboxOwner(credential: "not-a-uuid") == nil)
    }

    @Test(
        "operator commands: create refuses bad input and duplicates; list counts accounts",
        arguments: StorageBackend.allCases)
    func operatorCommands(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        await #expect(throws: ProUserCreationError.invalidEmail) {
            try await harness.service.accounts.createProUser(email: "no-at", password: "propassword")
        }
        await #expect(throws: MailboxError.passwordTooShort) {
            try await harness.service.accounts.createProUser(email: "x@example.com", password: "short")
        }
        await #expect(throws: ProUserCreationError.invalidMaxAccounts) {
            try await harness.service.accounts.createProUser(email: "x@example.com", password: "propassword", maxAccounts: -1)
        }
        let token = try await harness.proToken(email: "x@example.com", maxAccounts: 4)
        await #expect(throws: ProUserCreationError.emailTaken) {
            try await harness.service.accounts.createProUser(email: "X@example.com", password: "propassword")
        }
        _ = try await harness.createProAccount("owned@mail.localhost", bearer: token)
        try await harness.service.accounts.createProUser(email: "y@example.com", password: "propassword")
        let list = try await harness.service.accounts.listProUsers()
        #expect(list.map(\.email) == ["x@example.com", "y@example.com"])
        #expect(list.map(\.accountCount) == [1, 0])
        #expect(list.map(\.maxAccounts) == [4, 100])
    }
}

/// Methods used in table-driven access tests.
enum HTTPMethodName {
    case get, delete, put

    var method: HTTP1.HTTPMethod {
        switch self {
        case .get: .GET
        case .delete: .DELETE
        case .put: .PUT
        }
    }
}
