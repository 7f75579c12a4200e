import PosternTestSupport
import ServerKit
import AuthCrypto
import JWT
import Testing
import Time

@testable import MailboxAccounts

@Suite("Mailbox endpoints: domains, challenge, accounts, sign-in, info, delete, reset")
struct MailboxAccountEndpointTests {
    @Test("GET /api/domains lists public domains then Pro-only ones", arguments: StorageBackend.allCases)
    func domains(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let response = await harness.send(.GET, "/api/domains")
        #expect(response.status == 200)
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        let list = try #require(response["domains"]?.arrayValue)
        #expect(list.count == 3)
        #expect(list[0]["domain"]?.stringValue == "mail.localhost")
        #expect(list[0]["default"] == .bool(true))
        #expect(list[0]["sort_order"] == .int(0))
        #expect(list[0]["pro_only"] == nil)
        #expect(list[1]["domain"]?.stringValue == "alt.localhost")
        #expect(list[1]["default"] == .bool(false))
        #expect(list[2]["domain"]?.stringValue == "pro.localhost")
        #expect(list[2]["pro_only"] == .bool(true))
        #expect(list[2]["sort_order"] == .int(2))
        #expect(MailboxIdentifiers.isUUID(list[0]["id"]?.stringValue ?? ""))
        #expect(list[0]["id"] != list[1]["id"])
    }

    @Test(
        "GET /api/challenge: 32-hex id, 64-hex salt, configured difficulty, expiry 300 s ahead",
        arguments: StorageBackend.allCases)
    func challenge(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let response = await harness.send(.GET, "/api/challenge")
        #expect(response.status == 200)
        #expect(response.headers["Cache-Control"] == "no-store")
        let id = response.string("id")
        let salt = response.string("salt")
        #expect(id.count == 32 && Hex.decode(id) != nil && id == id.lowercased())
        #expect(salt.count == 64 && Hex.decode(salt) != nil)
        #expect(response["difficulty"] == .int(Int64(MailboxHarness.difficulty)))
        #expect(response["expires_at"] == .int(harness.clock.seconds + 300))
        let again = await harness.send(.GET, "/api/challenge")
        #expect(again.string("id") != id)
        #expect(again.string("salt") != salt)
    }

    @Test("a free account is created with a solved challenge and can read itself", arguments: StorageBackend.allCases)
    func createAndRead(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let pow = try await harness.solvedChallenge()
        let created = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "Demo@Mail.Localhost", pow: pow))
        #expect(created.status == 201)
        #expect(created.headers["Cache-Control"] == "no-store")
        let id = created.string("id")
        #expect(MailboxIdentifiers.isUUID(id))
        #expect(created.string("address") == "demo@mail.localhost")
        let token = created.string("token")
        let claims = try harness.keys.verify(
            token, policy: harness.service.tokens.policy(.mailbox), now: harness.clock.seconds)
        #expect(claims.sub == id)
        #expect(claims["ver"] == .int(0))
        #expect(claims.exp == harness.clock.seconds + 7 * 24 * 3600)
        let info = await harness.send(.GET, "/api/accounts/\(id)", bearer: token)
        #expect(info.status == 200)
        #expect(info.string("id") == id)
        #expect(info.string("address") == "demo@mail.localhost")
        #expect(info.string("role") == "user")
        #expect(info["quota"] == .int(41_943_040))
        #expect(info["used"] == .int(0))
        #expect(info.string("created_at") == RFC3339.format(harness.clock.seconds))
        #expect(info.string("created_at").hasSuffix("Z"))
    }

    @Test("creation refusals: 400s, then 403s for the proof, then 409", arguments: StorageBackend.allCases)
    func creationErrors(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        func create(_ json: String) async -> TestResponse { await harness.send(.POST, "/api/accounts", json: json) }
        let pow = try await harness.solvedChallenge()

        #expect(await create("not json").error == "invalid_request")
        // The one request-body rule: a duplicate key, or nesting past 32, is not JSON this server reads.
        let duplicate = #"{"address":"demo@mail.localhost","address":"x@mail.localhost"}"#
        #expect(await create(duplicate).error == "invalid_request")
        let deep = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(await create(#"{"address":"no-at-sign","x":"# + deep + "}").error == "invalid_request")
        let shallow = #"{"address":"no-at-sign","x":"# + deep.dropFirst().dropLast() + "}"
        #expect(await create(shallow).error == "invalid_address")
        #expect(await create("[1]").status == 400)
        #expect(await create(#"{"password":"secret1"}"#).error == "invalid_address")
        let badAddress = await create(MailboxHarness.createBody(address: "no-at-sign", pow: nil))
        #expect(badAddress.status == 400)
        #expect(badAddress.error == "invalid_address")
        #expect(
            await create(MailboxHarness.createBody(address: "a@elsewhere.test", pow: pow)).error == "invalid_domain")
        #expect(await create(MailboxHarness.createBody(address: "a@pro.localhost", pow: pow)).error == "invalid_domain")
        let short = await create(MailboxHarness.createBody(address: "a1@mail.localhost", password: "12345", pow: pow))
        #expect(short.status == 400)
        #expect(short.error == "password_too_short")
        #expect(await create(#"{"address":"a1@mail.localhost"}"#).error == "password_too_short")
        let long = String(repeating: "p", count: 4097)
        #expect(
            await create(MailboxHarness.createBody(address: "a1@mail.localhost", password: long, pow: pow)).error
                == "password_too_long")
        let noPow = await create(MailboxHarness.createBody(address: "a1@mail.localhost", pow: nil))
        #expect(noPow.status == 400)
        #expect(noPow.error == "proof of work required")
        #expect(
            await create(#"{"address":"a1@mail.localhost","password":"secret1","pow":{"nonce":"1"}}"#).error
                == "proof of work required")
        #expect(
            await create(#"{"address":"a1@mail.localhost","password":"secret1","pow":"x"}"#).error
                == "proof of work required")

        let unknown = await create(
            MailboxHarness.createBody(address: "a1@mail.localhost", pow: (String(repeating: "ab", count: 16), "1")))
        #expect(unknown.status == 403)
        #expect(unknown.error == "challenge not found or expired")
        #expect(
            await create(MailboxHarness.createBody(address: "a1@mail.localhost", pow: ("short", "1"))).error
                == "challenge not found or expired")
        // Altering any character of a genuine id breaks its tag.
        var tampered = Array(pow.id)
        tampered[0] = tampered[0] == "0" ? "1" : "0"
        #expect(
            await create(MailboxHarness.createBody(address: "a1@mail.localhost", pow: (String(tampered), pow.nonce)))
                .error
                == "challenge not found or expired")

        let wrongNonce = try #require(
            (0..<10_000).map(String.init).first { nonce in
                !ProofOfWork.isValid(
                    salt: harnessSalt(harness, pow.id), nonce: nonce, difficulty: MailboxHarness.difficulty)
            })
        let invalid = await create(MailboxHarness.createBody(address: "a1@mail.localhost", pow: (pow.id, wrongNonce)))
        #expect(invalid.status == 403)
        #expect(invalid.error == "invalid proof of work")
        #expect(
            await create(
                MailboxHarness.createBody(
                    address: "a1@mail.localhost", pow: (pow.id, String(repeating: "1", count: 65)))
            ).error
                == "invalid proof of work")
        #expect(
            await create(MailboxHarness.createBody(address: "a1@mail.localhost", pow: (pow.id, ""))).error
                == "invalid proof of work")

        // A refused proof did not use the challenge up; the valid one does, once.
        #expect(await create(MailboxHarness.createBody(address: "a1@mail.localhost", pow: pow)).status == 201)
        let reused = await create(MailboxHarness.createBody(address: "a2@mail.localhost", pow: pow))
        #expect(reused.status == 403)
        #expect(reused.error == "challenge not found or expired")

        // Uniqueness is judged last: a taken address with a bad proof is a 403, with a good one a 409.
        let fresh = try await harness.solvedChallenge()
        #expect(
            await create(
                MailboxHarness.createBody(
                    address: "A1@mail.localhost", pow: (fresh.id, wrongNonceFor(harness, fresh.id)))
            ).status
                == 403)
        let taken = await create(MailboxHarness.createBody(address: "A1@mail.localhost", pow: fresh))
        #expect(taken.status == 409)
        #expect(taken.error == "address_taken")
        // 400s come before the proof: a bad address with a bad proof is a 400.
        #expect(await create(MailboxHarness.createBody(address: "bad", pow: ("00", "1"))).status == 400)
    }

    @Test("an expired challenge is refused", arguments: StorageBackend.allCases)
    func expiredChallenge(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let pow = try await harness.solvedChallenge()
        harness.clock.advance(seconds: 301)
        let response = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "late@mail.localhost", pow: pow))
        #expect(response.status == 403)
        #expect(response.error == "challenge not found or expired")
    }

    @Test("a nonce may be sent as a JSON integer; difficulty 0 accepts any nonce", arguments: StorageBackend.allCases)
    func integerNonce(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend) { $0.powDifficulty = 0 }
        let challenge = await harness.send(.GET, "/api/challenge")
        #expect(challenge["difficulty"] == .int(0))
        let json =
            #"{"address":"n@mail.localhost","password":"secret1","pow":{"id":"\#(challenge.string("id"))","nonce":7}}"#
        #expect(await harness.send(.POST, "/api/accounts", json: json).status == 201)
    }

    @Test(
        "POST /api/token signs in; a wrong password and an unknown address get the same 401",
        arguments: StorageBackend.allCases)
    func signIn(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let account = try await harness.createAccount("signin@mail.localhost", password: "correct horse")
        let ok = await harness.send(
            .POST, "/api/token", json: #"{"address":"SignIn@mail.localhost","password":"correct horse"}"#)
        #expect(ok.status == 200)
        #expect(ok.string("id") == account.id)
        #expect(ok.string("address") == "signin@mail.localhost")
        #expect(ok.headers["Cache-Control"] == "no-store")
        #expect(await harness.send(.GET, "/api/accounts/\(account.id)", bearer: ok.string("token")).status == 200)

        let wrong = await harness.send(
            .POST, "/api/token", json: #"{"address":"signin@mail.localhost","password":"wrong horse"}"#)
        let unknown = await harness.send(
            .POST, "/api/token", json: #"{"address":"nobody@mail.localhost","password":"wrong horse"}"#)
        let malformed = await harness.send(
            .POST, "/api/token", json: #"{"address":"not an address","password":"wrong horse"}"#)
        for response in [wrong, unknown, malformed] {
            #expect(response.status == 401)
            #expect(response.body == Array(#"{"error":"invalid_credentials"}"#.utf8))
        }
        #expect(
            await harness.send(.POST, "/api/token", json: #"{"address":"signin@mail.localhost"}"#).error
                == "invalid_credentials")
        let huge = String(repeating: "x", count: 5000)
        #expect(
            await harness.send(.POST, "/api/token", json: #"{"address":"signin@mail.localhost","password":"\#(huge)"}"#)
                .status == 401)
        #expect(await harness.send(.POST, "/api/token", json: "{").error == "invalid_request")
    }

    @Test("account info: 401 without a valid token, 403 for another free account", arguments: StorageBackend.allCases)
    func infoAccess(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let alice = try await harness.createAccount("alice@mail.localhost")
        let bob = try await harness.createAccount("bob@mail.localhost")
        let anonymous = await harness.send(.GET, "/api/accounts/\(alice.id)")
        #expect(anonymous.status == 401)
        #expect(anonymous.body == Array(#"{"error":"invalid_or_expired_token"}"#.utf8))
        #expect(
            await harness.send(.GET, "/api/accounts/\(alice.id)", bearer: "garbage").error == "invalid_or_expired_token"
        )
        #expect(await harness.send(.GET, "/api/accounts/\(alice.id)", bearer: "tm_pro_nope").status == 401)
        let other = await harness.send(.GET, "/api/accounts/\(alice.id)", bearer: bob.token)
        #expect(other.status == 403)
        #expect(other.error == "forbidden")
        #expect(await harness.send(.GET, "/api/accounts/not-a-uuid", bearer: bob.token).error == "forbidden")
        #expect(await harness.send(.DELETE, "/api/accounts/\(alice.id)", bearer: bob.token).error == "forbidden")
        #expect(
            await harness.send(
                .PUT, "/api/accounts/\(alice.id)/reset-password", json: #"{"password":"newpass1"}"#, bearer: bob.token
            ).error
                == "forbidden")
        // A token signed by another key, or of another purpose, is not a mailbox token.
        let foreign = try MailboxHarness.keySet().sign(
            JWTClaims([
                ("iss", "http://postern.test"), ("sub", .string(alice.id)), ("iat", .int(harness.clock.seconds)),
                ("exp", .int(harness.clock.seconds + 60)), ("jti", "x"), ("pur", "mailbox"), ("ver", 0),
            ]),
            algorithm: .hs256)
        #expect(await harness.send(.GET, "/api/accounts/\(alice.id)", bearer: foreign).status == 401)
        let session = try harness.keys.sign(
            JWTClaims([
                ("iss", "http://postern.test"), ("sub", .string(alice.id)), ("iat", .int(harness.clock.seconds)),
                ("exp", .int(harness.clock.seconds + 60)), ("jti", "x"), ("pur", "session"), ("ver", 0),
            ]),
            algorithm: .hs256)
        #expect(await harness.send(.GET, "/api/accounts/\(alice.id)", bearer: session).status == 401)
    }

    @Test("a mailbox token expires after 7 days (30 s leeway)", arguments: StorageBackend.allCases)
    func expiry(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let account = try await harness.createAccount("expiry@mail.localhost")
        harness.clock.advance(seconds: 7 * 24 * 3600 + 20)
        #expect(await harness.send(.GET, "/api/accounts/\(account.id)", bearer: account.token).status == 200)
        harness.clock.advance(seconds: 11)
        #expect(
            await harness.send(.GET, "/api/accounts/\(account.id)", bearer: account.token).error
                == "invalid_or_expired_token")
    }

    @Test(
        "DELETE /api/accounts/{id}: 204, then every token of the account fails and the address is free",
        arguments: StorageBackend.allCases)
    func delete(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let account = try await harness.createAccount("gone@mail.localhost", password: "secret1")
        let second = await harness.send(
            .POST, "/api/token", json: #"{"address":"gone@mail.localhost","password":"secret1"}"#)
        #expect(await harness.send(.DELETE, "/api/accounts/\(account.id)").status == 401)
        let deleted = await harness.send(.DELETE, "/api/accounts/\(account.id)", bearer: account.token)
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)
        for token in [account.token, second.string("token")] {
            let after = await harness.send(.GET, "/api/accounts/\(account.id)", bearer: token)
            #expect(after.status == 401)
            #expect(after.error == "invalid_or_expired_token")
            #expect(await harness.send(.DELETE, "/api/accounts/\(account.id)", bearer: token).status == 401)
        }
        #expect(
            await harness.send(.POST, "/api/token", json: #"{"address":"gone@mail.localhost","password":"secret1"}"#)
                .status == 401)
        let again = try await harness.createAccount("gone@mail.localhost")
        #expect(again.id != account.id)
        #expect(await harness.send(.GET, "/api/accounts/\(account.id)", bearer: again.token).status == 403)
    }

    @Test(
        "deleting an account deletes its mail, its change log and its state, in one transaction; others' stay",
        arguments: StorageBackend.allCases)
    func deleteTakesChangeLog(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let gone = try await harness.createAccount("churn@mail.localhost")
        _ = try await harness.createAccount("kept@mail.localhost")
        for address in ["churn@mail.localhost", "kept@mail.localhost"] {
            _ = try await MailboxMessageEndpointTests.deliver(harness, to: address, subject: "one")
            _ = try await MailboxMessageEndpointTests.deliver(harness, to: address, subject: "two")
        }
        func rows(_ table: String, _ address: String) throws -> Int64 {
            try harness.database.readSync {
                try $0.query("SELECT COUNT(*) AS n FROM \(table) WHERE address = ?", [.text(address)]).first?.int("n")
            } ?? -1
        }
        #expect(try rows("mail_changes", "churn@mail.localhost") == 2)
        #expect(await harness.send(.DELETE, "/api/accounts/\(gone.id)", bearer: gone.token).status == 204)
        for table in ["mail_messages", "mail_changes", "mail_state"] {
            #expect(try rows(table, "churn@mail.localhost") == 0, "\(table)")
        }
        #expect(try rows("mail_messages", "kept@mail.localhost") == 2)
        #expect(try rows("mail_changes", "kept@mail.localhost") == 2)
        #expect(try rows("mail_state", "kept@mail.localhost") == 1)
    }

    @Test(
        "reset-password: every token issued before fails at once; the new password works",
        arguments: StorageBackend.allCases)
    func reset(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let account = try await harness.createAccount("reset@mail.localhost", password: "oldpass1")
        let login = #"{"address":"reset@mail.localhost","password":"oldpass1"}"#
        let earlier =
            [account.token] + [
                await harness.send(.POST, "/api/token", json: login).string("token"),
                await harness.send(.POST, "/api/token", json: login).string("token"),
            ]
        for token in earlier {
            #expect(await harness.send(.GET, "/api/accounts/\(account.id)", bearer: token).status == 200)
        }

        let path = "/api/accounts/\(account.id)/reset-password"
        #expect(await harness.send(.PUT, path, json: #"{"password":"newpass1"}"#).status == 401)
        let short = await harness.send(.PUT, path, json: #"{"password":"12345"}"#, bearer: account.token)
        #expect(short.status == 400)
        #expect(short.error == "password_too_short")
        let reset = await harness.send(.PUT, path, json: #"{"password":"newpass1"}"#, bearer: earlier[1])
        #expect(reset.status == 200)
        #expect(reset.body == Array(#"{"message":"password_reset"}"#.utf8))

        for token in earlier {
            let response = await harness.send(.GET, "/api/accounts/\(account.id)", bearer: token)
            #expect(response.status == 401)
            #expect(response.error == "invalid_or_expired_token")
            #expect(await harness.send(.PUT, path, json: #"{"password":"another1"}"#, bearer: token).status == 401)
            #expect(await harness.send(.DELETE, "/api/accounts/\(account.id)", bearer: token).status == 401)
        }
        #expect(await harness.send(.POST, "/api/token", json: login).error == "invalid_credentials")
        let fresh = await harness.send(
            .POST, "/api/token", json: #"{"address":"reset@mail.localhost","password":"newpass1"}"#)
        #expect(fresh.status == 200)
        let claims = try harness.keys.verify(
            fresh.string("token"), policy: harness.service.tokens.policy(.mailbox), now: harness.clock.seconds)
        #expect(claims["ver"] == .int(1))
        #expect(await harness.send(.GET, "/api/accounts/\(account.id)", bearer: fresh.string("token")).status == 200)
    }

    @Test(
        "an empty bearer on a public endpoint is anonymous; a bad one on account creation is a 401",
        arguments: StorageBackend.allCases)
    func anonymousBearer(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        #expect(await harness.send(.GET, "/api/domains", headers: [("Authorization", "Bearer ")]).status == 200)
        #expect(await harness.send(.GET, "/api/challenge", bearer: "whatever").status == 200)
        let pow = try await harness.solvedChallenge()
        let empty = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "anon@mail.localhost", pow: pow),
            headers: [("Authorization", "Bearer ")])
        #expect(empty.status == 201)
        let bad = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "anon2@mail.localhost", pow: nil),
            bearer: "tm_pro_revoked")
        #expect(bad.status == 401)
        #expect(bad.error == "invalid_or_expired_token")
        // A mailbox token does not make its holder Pro: the proof is still required.
        let free = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "anon3@mail.localhost", pow: nil),
            bearer: empty.string("token"))
        #expect(free.error == "proof of work required")
    }

    @Test("a full worker pool answers 503 service_unavailable", arguments: StorageBackend.allCases)
    func overloaded(_ backend: StorageBackend) async throws {
        let pool = WorkerPoolBlocker()
        let harness = try MailboxHarness(backend, pool: pool.pool)
        try await pool.block()
        let response = await harness.send(
            .POST, "/api/token", json: #"{"address":"x@mail.localhost","password":"secret1"}"#)
        pool.release()
        #expect(response.status == 503)
        #expect(response.error == "service_unavailable")
        #expect(response.headers["Retry-After"] == "1")
    }
}

/// The salt the harness's service gives a challenge id (opened through the service's own challenges).
private func harnessSalt(_ harness: MailboxHarness, _ id: String) -> String {
    (try? harness.service.challenges.open(id: id, now: harness.clock.seconds).salt) ?? ""
}

private func wrongNonceFor(_ harness: MailboxHarness, _ id: String) -> String {
    let salt = harnessSalt(harness, id)
    return (0..<10_000).map(String.init).first {
        !ProofOfWork.isValid(salt: salt, nonce: $0, difficulty: MailboxHarness.difficulty)
    } ?? "x"
}
