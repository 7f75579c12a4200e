import AuthCrypto
import PosternTestSupport
import Storage
import Testing

@testable import MailboxAccounts

/// Mail.td's v2 protocol (`auth_key`) beside its v1 protocol (`password`) on one set of accounts.
@Suite("Mailbox auth_key: both Mail.td protocols on one account")
struct MailboxAuthKeyTests {
    /// Known answers computed with argon2-cffi's `hash_secret_raw`, as Mail.td's SDK 2.0.0 (`mailtd/crypto.py`)
    /// derives them: salt = SHA-256(lower(trim(address))), t=3, m=16384 KiB, p=1, 32 bytes.
    @Test(
        "auth_key derivation matches Mail.td's SDK",
        arguments: [
            ("alice@mail.localhost", "correct horse", "c14062b26d4a6c67968ac82ec2e754008649c7dbc5c57e56022ebd50ffab229e"),
            ("bob@mail.localhost", "pässwörd", "0470e67536907c7dda10a320168ebe67fc675b8ae74e5b7902d91f4f94f94d85"),
        ])
    func knownAnswers(address: String, password: String, expected: String) throws {
        let key = try MailboxAuthKey.derive(address: address, password: password, parameters: .mailTDAuthKey)
        #expect(Hex.encode(key) == expected)
    }

    @Test("the stored verifier is SHA-256 of the key's bytes")
    func verifierKnownAnswer() throws {
        let key = try #require(Hex.decode("c14062b26d4a6c67968ac82ec2e754008649c7dbc5c57e56022ebd50ffab229e"))
        #expect(
            Hex.encode(MailboxAuthKey.verifier(key))
                == "89f0a3a76202e28981ef1f3344ceda126dc05156f51779ee5ab108bc95893bc3")
    }

    /// The key the harness's (cheap) derivation gives, as a v2 client with those parameters would send it.
    static func authKey(_ harness: MailboxHarness, _ address: String, _ password: String) throws -> String {
        Hex.encode(
            try MailboxAuthKey.derive(
                address: address, password: password, parameters: harness.service.configuration.authKeyArgon2))
    }

    static func body(_ address: String, authKey: String, pow: (id: String, nonce: String)? = nil) -> String {
        var text = #"{"address":"\#(address)","auth_key":"\#(authKey)""#
        if let pow { text += #","pow":{"id":"\#(pow.id)","nonce":"\#(pow.nonce)"}"# }
        return text + "}"
    }

    @Test(
        "an account made with a password signs in with the auth_key of that password, and the other way round",
        arguments: StorageBackend.allCases)
    func bothWays(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let v1 = try await harness.createAccount("v1user@mail.localhost", password: "secret1")
        let signIn = await harness.send(
            .POST, "/api/token",
            json: Self.body("V1User@mail.localhost", authKey: try Self.authKey(harness, "v1user@mail.localhost", "secret1")))
        #expect(signIn.status == 200)
        #expect(signIn.string("id") == v1.id)

        let pow = try await harness.solvedChallenge()
        let key = try Self.authKey(harness, "v2user@mail.localhost", "other-secret")
        let created = await harness.send(.POST, "/api/accounts", json: Self.body("v2user@mail.localhost", authKey: key, pow: pow))
        #expect(created.status == 201)
        let byPassword = await harness.send(
            .POST, "/api/token", json: #"{"address":"v2user@mail.localhost","password":"other-secret"}"#)
        #expect(byPassword.status == 200)
        #expect(byPassword.string("id") == created.string("id"))
        let wrong = await harness.send(
            .POST, "/api/token", json: #"{"address":"v2user@mail.localhost","password":"other-secreT"}"#)
        #expect(wrong.status == 401 && wrong.error == "invalid_credentials")
        let wrongKey = await harness.send(
            .POST, "/api/token", json: Self.body("v2user@mail.localhost", authKey: String(repeating: "ab", count: 32)))
        #expect(wrongKey.status == 401 && wrongKey.error == "invalid_credentials")
    }

    @Test(
        "a malformed auth_key is 400 invalid_auth_key on every endpoint that takes one, never password_too_short",
        arguments: StorageBackend.allCases,
        [#""abc""#, "\"\(String(repeating: "a", count: 63))\"", "\"\(String(repeating: "g", count: 64))\"", "12", "true"])
    func malformed(_ backend: StorageBackend, value: String) async throws {
        let harness = try MailboxHarness(backend)
        let account = try await harness.createAccount("keyed@mail.localhost")
        let pow = try await harness.solvedChallenge()
        let create = await harness.send(
            .POST, "/api/accounts",
            json: #"{"address":"new@mail.localhost","auth_key":\#(value),"pow":{"id":"\#(pow.id)","nonce":"\#(pow.nonce)"}}"#)
        let token = await harness.send(.POST, "/api/token", json: #"{"address":"keyed@mail.localhost","auth_key":\#(value)}"#)
        let reset = await harness.send(
            .PUT, "/api/accounts/\(account.id)/reset-password", json: #"{"auth_key":\#(value)}"#, bearer: account.token)
        for response in [create, token, reset] {
            #expect(response.status == 400)
            #expect(response.error == "invalid_auth_key")
        }
    }

    @Test(
        "password and auth_key together, or a password that is not a string, are 400 invalid_request",
        arguments: StorageBackend.allCases)
    func bothOrWrongType(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let key = String(repeating: "ab", count: 32)
        for body in [
            #"{"address":"x@mail.localhost","password":"secret1","auth_key":"\#(key)"}"#,
            #"{"address":"x@mail.localhost","password":null}"#, #"{"address":"x@mail.localhost","password":12345678}"#,
        ] {
            let token = await harness.send(.POST, "/api/token", json: body)
            #expect(token.status == 400 && token.error == "invalid_request", "\(body)")
        }
        let pro = try await harness.proToken(email: "both@example.com")
        let create = await harness.send(
            .POST, "/api/accounts", json: #"{"address":"x@mail.localhost","password":"secret1","auth_key":"\#(key)"}"#,
            bearer: pro)
        #expect(create.status == 400 && create.error == "invalid_request")
        let malformedProof = await harness.send(
            .POST, "/api/accounts", json: #"{"address":"x@mail.localhost","password":"secret1","pow":{"id":1}}"#, bearer: pro)
        #expect(malformedProof.status == 400 && malformedProof.error == "proof of work required")
    }

    @Test("an upper-case auth_key is the same key", arguments: StorageBackend.allCases)
    func upperCase(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        _ = try await harness.createAccount("case@mail.localhost", password: "secret1")
        let key = try Self.authKey(harness, "case@mail.localhost", "secret1").uppercased()
        let signIn = await harness.send(.POST, "/api/token", json: Self.body("case@mail.localhost", authKey: key))
        #expect(signIn.status == 200)
    }

    @Test(
        "a reset with an auth_key ends every earlier token; the new password signs in either way",
        arguments: StorageBackend.allCases)
    func resetWithAuthKey(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let account = try await harness.createAccount("reset@mail.localhost", password: "secret1")
        let newKey = try Self.authKey(harness, "reset@mail.localhost", "brand-new")
        let reset = await harness.send(
            .PUT, "/api/accounts/\(account.id)/reset-password", json: #"{"auth_key":"\#(newKey)"}"#,
            bearer: account.token)
        #expect(reset.status == 200)
        #expect(await harness.send(.GET, "/api/accounts/\(account.id)", bearer: account.token).status == 401)
        let old = await harness.send(.POST, "/api/token", json: #"{"address":"reset@mail.localhost","password":"secret1"}"#)
        #expect(old.status == 401)
        let byPassword = await harness.send(
            .POST, "/api/token", json: #"{"address":"reset@mail.localhost","password":"brand-new"}"#)
        #expect(byPassword.status == 200)
        let byKey = await harness.send(.POST, "/api/token", json: Self.body("reset@mail.localhost", authKey: newKey))
        #expect(byKey.status == 200)
    }

    @Test(
        "an account stored before auth_key signs in with its password once, which replaces the hash by a verifier",
        arguments: StorageBackend.allCases)
    func legacyUpgrade(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let hash = try await harness.service.hasher.hash("old-secret")
        try await harness.database.write { connection in
            _ = try connection.run(
                """
                INSERT INTO mailbox_accounts (id, address, password_hash, quota, created_at)
                    VALUES ('5b0e7a4e-2f7c-4d1e-9a43-0c1d2e3f4a5b', 'legacy@mail.localhost', ?, 100, 1)
                """, [.text(hash)])
        }
        let key = try Self.authKey(harness, "legacy@mail.localhost", "old-secret")
        let tooEarly = await harness.send(.POST, "/api/token", json: Self.body("legacy@mail.localhost", authKey: key))
        #expect(tooEarly.status == 401)
        let wrong = await harness.send(.POST, "/api/token", json: #"{"address":"legacy@mail.localhost","password":"nope-nope"}"#)
        #expect(wrong.status == 401)
        let v1 = await harness.send(.POST, "/api/token", json: #"{"address":"legacy@mail.localhost","password":"old-secret"}"#)
        #expect(v1.status == 200)
        let stored = try #require(try await harness.service.store.account(address: "legacy@mail.localhost"))
        #expect(stored.passwordHash == "")
        #expect(stored.authVerifier == MailboxAuthKey.verifier(try #require(Hex.decode(key))))
        #expect(stored.tokenEpoch == 0)
        let v2 = await harness.send(.POST, "/api/token", json: Self.body("legacy@mail.localhost", authKey: key))
        #expect(v2.status == 200)
        let again = await harness.send(.POST, "/api/token", json: #"{"address":"legacy@mail.localhost","password":"old-secret"}"#)
        #expect(again.status == 200)
    }

    @Test(
        "with the proof of work not required, a free account needs none; a proof that is sent is still checked",
        arguments: StorageBackend.allCases)
    func powOptional(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend, configure: { $0.powRequired = false })
        let key = try Self.authKey(harness, "free@mail.localhost", "secret1")
        let created = await harness.send(.POST, "/api/accounts", json: Self.body("free@mail.localhost", authKey: key))
        #expect(created.status == 201)
        let bad = await harness.send(
            .POST, "/api/accounts", json: Self.body("free2@mail.localhost", authKey: key, pow: ("0" + String(repeating: "a", count: 31), "1")))
        #expect(bad.status == 403)

        let required = try MailboxHarness(backend)
        let refused = await required.send(.POST, "/api/accounts", json: Self.body("free@mail.localhost", authKey: key))
        #expect(refused.status == 400 && refused.error == "proof of work required")
    }

    @Test(
        "a bearer that is no token (an SDK's placeholder) is anonymous where none is needed; a token-shaped one is 401",
        arguments: StorageBackend.allCases, ["null", "undefined", "none", "placeholder-token", "x.y"])
    func placeholderBearer(_ backend: StorageBackend, bearer: String) async throws {
        let harness = try MailboxHarness(backend)
        let pow = try await harness.solvedChallenge()
        let created = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "anon@mail.localhost", pow: pow),
            bearer: bearer)
        #expect(created.status == 201)
        let info = await harness.send(.GET, "/api/accounts/\(created.string("id"))", bearer: bearer)
        #expect(info.status == 401 && info.error == "invalid_or_expired_token")
    }

    @Test(
        "a well-formed token that does not verify is still 401 on account creation", arguments: StorageBackend.allCases)
    func badTokenStillRefused(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let pow = try await harness.solvedChallenge()
        let created = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "anon@mail.localhost", pow: pow),
            bearer: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl")
        #expect(created.status == 401 && created.error == "invalid_or_expired_token")
        #expect(MailboxAuthorizer.isCompactJWS("a.b.c"))
        #expect(!MailboxAuthorizer.isCompactJWS("a..c") && !MailboxAuthorizer.isCompactJWS("a.b.c.") && !MailboxAuthorizer.isCompactJWS("a b.c.d"))
    }

    @Test(
        "an account is reached by its address as well as its id, by its own token and by its Pro owner",
        arguments: StorageBackend.allCases)
    func addressAsID(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let account = try await harness.createAccount("byname@mail.localhost")
        let own = await harness.send(.GET, "/api/accounts/ByName@mail.localhost", bearer: account.token)
        #expect(own.status == 200 && own.string("id") == account.id)
        let other = try await harness.createAccount("other@mail.localhost")
        #expect(await harness.send(.GET, "/api/accounts/other@mail.localhost", bearer: account.token).status == 403)

        let pro = try await harness.proToken(email: "owner@example.com")
        let owned = try await harness.createProAccount("owned@mail.localhost", bearer: pro)
        let reset = await harness.send(
            .PUT, "/api/user/accounts/owned@mail.localhost/reset-password", json: #"{"password":"another1"}"#, bearer: pro)
        #expect(reset.status == 200)
        #expect(await harness.send(.DELETE, "/api/user/accounts/\(other.id)", bearer: pro).status == 404)
        #expect(await harness.send(.DELETE, "/api/user/accounts/owned@mail.localhost", bearer: pro).status == 204)
        #expect(try await harness.service.store.account(id: owned) == nil)
    }

    @Test(
        "GET /api/user/me carries ops_used and ops_limit, which Mail.td's v2 SDK requires",
        arguments: StorageBackend.allCases)
    func opsFields(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let pro = try await harness.proToken(email: "ops@example.com")
        let me = await harness.send(.GET, "/api/user/me", bearer: pro)
        #expect(me.status == 200)
        #expect(me["ops_used"] == .int(0))
        #expect(me["ops_limit"] == .int(0))
    }
}
