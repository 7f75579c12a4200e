import AuthCrypto
import Foundation
import HTTP1
import JSON
import JWT
import PosternTestSupport
import Testing

@testable import RemoteHashAuth

@Suite("Remote hash JSON API")
struct RemoteHashAPITests {
    @Test(
        "register then login; the token carries exactly the documented claims plus jti, pur and ver",
        arguments: StorageBackend.allCases)
    func registerAndLogin(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        let url = try h.serveHash(of: "correct horse")
        let (status, body) = await h.api(
            .POST, "/register", ["email": " Alice@Example.COM ", "password_hash_url": url, "password": "correct horse"])
        #expect(status == 201)
        #expect(body == .object([("email", "alice@example.com"), ("password_hash_url", .string(url))]))
        let (loginStatus, loginBody) = await h.api(
            .POST, "/login", ["email": "ALICE@example.com", "password": "correct horse"])
        #expect(loginStatus == 200)
        #expect(loginBody?["token_type"] == "Bearer")
        #expect(loginBody?["email"] == "alice@example.com")
        let token = try #require(loginBody?["token"]?.stringValue)
        let parts = token.split(separator: ".").map(String.init)
        let header = try JSONValue.parse(try #require(Base64URL.decode(parts[0])))
        #expect(header["alg"] == "RS256")
        #expect(header["kid"] == "remote-test")
        let claims = try JSONValue.parse(try #require(Base64URL.decode(parts[1])))
        #expect(claims.objectValue?.map(\.0) == ["sub", "email", "iss", "iat", "exp", "jti", "pur", "ver"])
        #expect(claims["sub"] == "alice@example.com")
        #expect(claims["email"] == "alice@example.com")
        #expect(claims["iss"] == "https://postern.test")
        #expect(claims["iat"]?.intValue == h.clock.now)
        #expect(claims["exp"]?.intValue == h.clock.now + 3600)
        #expect(claims["pur"] == "remote-login")
        #expect(claims["ver"] == 0)
        #expect(claims["jti"]?.stringValue?.count == 32)
        let verified = try sharedKeys.verify(
            token, policy: h.service.tokenPolicy, now: h.clock.now)
        #expect(verified.sub == "alice@example.com")
    }

    @Test("changing the hash at the origin changes which password works", arguments: StorageBackend.allCases)
    func originDecides(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        let url = try h.serveHash(of: "alpha")
        #expect(await h.register("bob@example.com", url, "alpha") == (201, nil))
        #expect(await h.login("bob@example.com", "alpha").status == 200)
        try h.serveHash(of: "beta")
        #expect(await h.login("bob@example.com", "alpha").error == "Invalid email or password.")
        #expect(await h.login("bob@example.com", "beta").status == 200)
    }

    @Test("every registration message of CONTRACT 3.2", arguments: StorageBackend.allCases)
    func registrationMessages(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        let good = try h.serveHash(of: "pw")
        h.origin.set("/missing", status: 404, body: "no")
        h.origin.set("/garbage", body: "this is not a hash")
        h.origin.set("/empty", body: "  \n")
        h.origin.set("/big", body: String(repeating: "$", count: 5000))
        h.origin.set("/memory", body: "$argon2id$v=19$m=1048576,t=1,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA")
        h.origin.set("/passes", body: "$argon2id$v=19$m=64,t=11,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA")
        h.origin.set("/lanes", body: "$argon2i$v=19$m=1024,t=1,p=9$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA")
        let closed = try TestOrigin()
        closed.stop()
        let cases: [(String, String, String, String)] = [
            ("", good, "pw", "Email can't be blank"),
            ("   ", good, "pw", "Email can't be blank"),
            ("not-an-email", good, "pw", "Email is invalid"),
            ("a@b", good, "pw", "Email is invalid"),
            ("a b@example.com", good, "pw", "Email is invalid"),
            ("c@example.com", "", "pw", "Password hash URL can't be blank"),
            ("c@example.com", "example.com/hash", "pw", "Password hash URL is invalid."),
            ("c@example.com", "ftp://example.com/hash", "pw", "Password hash URL is invalid."),
            ("c@example.com", "http://256.0.0.1/", "pw", "Password hash URL is invalid."),
            ("c@example.com", h.origin.url("/missing"), "pw", "Could not fetch password hash URL."),
            ("c@example.com", closed.url("/"), "pw", "Could not fetch password hash URL."),
            ("c@example.com", h.origin.url("/garbage"), "pw", "Password hash URL did not return an Argon2 hash."),
            ("c@example.com", h.origin.url("/empty"), "pw", "Password hash URL did not return an Argon2 hash."),
            ("c@example.com", h.origin.url("/big"), "pw", "Password hash URL did not return an Argon2 hash."),
            (
                "c@example.com", h.origin.url("/memory"), "pw",
                "Password hash URL returned an Argon2 hash with parameters above this server's limits."
            ),
            (
                "c@example.com", h.origin.url("/passes"), "pw",
                "Password hash URL returned an Argon2 hash with parameters above this server's limits."
            ),
            (
                "c@example.com", h.origin.url("/lanes"), "pw",
                "Password hash URL returned an Argon2 hash with parameters above this server's limits."
            ),
            ("c@example.com", good, "wrong", "Password does not match the remote Argon2 hash."),
            ("c@example.com", good, "", "Password does not match the remote Argon2 hash."),
        ]
        for (email, url, password, message) in cases {
            let (status, error) = await h.register(email, url, password)
            #expect(status == 422, "\(email) \(url)")
            #expect(error == message, "\(email) \(url)")
        }
        #expect(await h.register("c@example.com", good, "pw") == (201, nil))
        #expect(await h.register("C@Example.com", good, "pw") == (422, "Email has already been taken"))
    }

    @Test(
        "the address policy refuses private URLs with a message that names the rule and the setting, without connecting"
    , arguments: StorageBackend.allCases)
    func notAllowed(_ backend: StorageBackend) async throws {
        let h = try Harness(backend) { $0.allowPrivate = false }
        let url = try h.serveHash(of: "pw")
        let loopback =
            "Password hash URL is not allowed. It points at a loopback address; the server's operator can allow such "
            + "addresses with POSTERN_OUTBOUND_ALLOW_PRIVATE=true, or this host alone by listing it in "
            + "POSTERN_OUTBOUND_ALLOWED_HOSTS."
        for target in [
            url, "http://2130706433:\(h.origin.port)/hash.txt", "http://localhost:\(h.origin.port)/hash.txt",
            "http://[::ffff:127.0.0.1]:\(h.origin.port)/hash.txt",
        ] {
            #expect(await h.register("d@example.com", target, "pw") == (422, loopback))
        }
        #expect(
            await h.register("d@example.com", "http://169.254.169.254/latest/meta-data/", "pw")
                == (
                    422,
                    "Password hash URL is not allowed. It points at a link-local address; only listing the host "
                        + "in the operator's POSTERN_OUTBOUND_ALLOWED_HOSTS allows it."
                ))
        #expect(
            await h.register("d@example.com", "http://224.0.0.1/h", "pw")
                == (
                    422,
                    "Password hash URL is not allowed. It points at a multicast address; no web server answers "
                        + "there, and no setting allows it."
                ))
        #expect(h.origin.acceptedConnections == 0)
        let listed = try Harness(backend) {
            $0.allowPrivate = false
            $0.allowedHosts = ["127.0.0.1"]
        }
        #expect(await listed.register("d@example.com", try listed.serveHash(of: "pw"), "pw") == (201, nil))
    }

    @Test(
        "expensive parameters are refused before any hashing: the Argon2 gate admits nothing",
        arguments: StorageBackend.allCases)
    func expensiveRefusedBeforeHashing(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        h.origin.set("/huge", body: "$argon2id$v=19$m=4194304,t=10,p=8$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA")
        h.origin.set(
            "/slowpasses", body: "$argon2id$v=19$m=262144,t=4294967295,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA")
        for path in ["/huge", "/slowpasses"] {
            // Hashing 2^32 passes would never finish: these must be refused from the parameters alone.
            let (status, error) = await h.register("e@example.com", h.origin.url(path), "pw")
            #expect(status == 422)
            #expect(error == "Password hash URL returned an Argon2 hash with parameters above this server's limits.")
        }
        #expect(h.service.verifier.gate.admittedCount == 0)
        #expect(await h.register("e@example.com", try h.serveHash(of: "pw"), "pw") == (201, nil))
        #expect(h.service.verifier.gate.admittedCount == 1)
    }

    @Test(
        "login: unknown email and wrong password look the same; fetch failures keep their message",
        arguments: StorageBackend.allCases)
    func loginMessages(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        let url = try h.serveHash(of: "pw")
        #expect(await h.register("f@example.com", url, "pw") == (201, nil))
        #expect(await h.login("nobody@example.com", "pw").error == "Invalid email or password.")
        #expect(await h.login("f@example.com", "nope").error == "Invalid email or password.")
        #expect(await h.login("", "").error == "Invalid email or password.")
        #expect(await h.login("f@example.com", "nope").status == 422)
        h.origin.set("/hash.txt", status: 500, body: "down")
        #expect(await h.login("f@example.com", "pw").error == "Could not fetch password hash URL.")
        h.origin.set("/hash.txt", body: "garbage")
        #expect(await h.login("f@example.com", "pw").error == "Password hash URL did not return an Argon2 hash.")
        h.origin.set("/hash.txt", body: "$argon2d$v=16$m=524288,t=1,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA")
        #expect(
            await h.login("f@example.com", "pw").error
                == "Password hash URL returned an Argon2 hash with parameters above this server's limits.")
    }

    @Test("argon2i, argon2d and version 16 hashes verify", arguments: StorageBackend.allCases)
    func variants(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        for (index, variant) in [Argon2Variant.i, .d, .id].enumerated() {
            let encoded = try Argon2.hash(
                password: Array("pw".utf8), salt: SecureRandom.bytes(16), variant: variant, memoryKiB: 64,
                iterations: 1,
                parallelism: 2)
            h.origin.set("/v\(index)", body: encoded)
            #expect(await h.register("v\(index)@example.com", h.origin.url("/v\(index)"), "pw") == (201, nil))
        }
        let raw = try Argon2.rawHash(
            password: Array("pw".utf8), salt: Array("saltsaltsalt".utf8), variant: .i, version: 16, memoryKiB: 64,
            iterations: 1, parallelism: 1, length: 32)
        let v16 = Argon2Hash(
            variant: .i, version: 16, memoryKiB: 64, iterations: 1, parallelism: 1, salt: Array("saltsaltsalt".utf8),
            hash: raw)
        h.origin.set("/v16", body: v16.encoded)
        #expect(await h.register("v16@example.com", h.origin.url("/v16"), "pw") == (201, nil))
    }

    @Test("verifications past the memory budget get 503 instead of running", arguments: StorageBackend.allCases)
    func busy(_ backend: StorageBackend) async throws {
        let h = try Harness(backend) { $0.verificationMemoryBudgetKiB = 32 }
        let url = try h.serveHash(of: "pw")
        let (status, json) = await h.api(
            .POST, "/register", ["email": "g@example.com", "password_hash_url": url, "password": "pw"])
        #expect(status == 503)
        #expect(json?["error"]?.stringValue?.isEmpty == false)
    }

    @Test(
        "a JSON body with a duplicate key or nested past 32 is 400 {\"error\"} (the one request-body rule)",
        arguments: StorageBackend.allCases)
    func unreadableBodies(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        let url = try h.serveHash(of: "pw")
        let headers = [("Accept", "application/json"), ("Content-Type", "application/json")]
        let deep = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        let bodies = [
            #"{"email":"d@example.com","email":"e@example.com","password_hash_url":"\#(url)","password":"pw"}"#,
            #"{"email":"d@example.com","password_hash_url":"\#(url)","password":"pw","x":"# + deep + "}",
        ]
        for body in bodies {
            for path in ["/register", "/login"] {
                let response = await h.send(.POST, path, headers: headers, body: Array(body.utf8))
                #expect(response.status == .badRequest, "\(path) \(body.prefix(40))")
                #expect(try JSONValue.parse(response.body) == ["error": "The request body could not be read."])
            }
        }
        // One level less is read: the registration goes through.
        let shallow = #"{"email":"d@example.com","password_hash_url":"\#(url)","password":"pw","x":"#
            + deep.dropFirst().dropLast() + "}"
        let registered = await h.send(.POST, "/register", headers: headers, body: Array(shallow.utf8))
        #expect(registered.status.code == 201, "\(registered.text)")
    }

    @Test(
        "validate accepts body and Bearer tokens, refuses anything else with the exact shape",
        arguments: StorageBackend.allCases)
    func validate(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        #expect(await h.register("v@example.com", try h.serveHash(of: "pw"), "pw") == (201, nil))
        let token = try #require(await h.login("v@example.com", "pw").token)
        let (status, json) = await h.api(.POST, "/validate", ["token": token])
        #expect(status == 200)
        #expect(json?["valid"] == true)
        #expect(json?["payload"]?["email"] == "v@example.com")
        #expect(await h.api(.POST, "/validate", bearer: token).status == 200)
        let invalid = JSONValue.object([("valid", false), ("error", "Invalid token.")])
        for bad in ["", "abc", token + "x", String(token.dropLast(3)) + "AAA"] {
            let result = await h.api(.POST, "/validate", ["token": bad])
            #expect(result.status == 401)
            #expect(result.json == invalid)
        }
        #expect(await h.api(.POST, "/validate").json == invalid)
        // A token of another purpose, signed by the same key, is refused.
        let other = try sharedKeys.sign(
            JWTClaims([
                ("sub", "v@example.com"), ("email", "v@example.com"), ("iss", "https://postern.test"),
                ("iat", .int(h.clock.now)), ("exp", .int(h.clock.now + 60)), ("jti", "x"), ("pur", "session"),
                ("ver", 0),
            ]),
            algorithm: .rs256)
        #expect(await h.api(.POST, "/validate", ["token": other]).status == 401)
        h.clock.advance(3600 + 31)
        #expect(await h.api(.POST, "/validate", ["token": token]).json == invalid)
    }

    @Test(
        "logout with a Bearer token or credentials bumps the version; earlier tokens stop validating",
        arguments: StorageBackend.allCases)
    func logout(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        #expect(await h.register("l@example.com", try h.serveHash(of: "pw"), "pw") == (201, nil))
        let first = try #require(await h.login("l@example.com", "pw").token)
        let second = try #require(await h.login("l@example.com", "pw").token)
        let (status, json) = await h.api(.DELETE, "/logout", bearer: first)
        #expect(status == 200)
        #expect(json == .object([("success", true), ("email", "l@example.com")]))
        let refused = JSONValue.object([("error", "Invalid token or credentials.")])
        #expect(await h.api(.POST, "/validate", ["token": second]).status == 401)
        #expect(await h.api(.DELETE, "/logout", bearer: first) == (401, refused))
        let third = try #require(await h.login("l@example.com", "pw").token)
        #expect(await h.api(.POST, "/validate", ["token": third]).status == 200)
        let decoded = try #require(await h.api(.POST, "/validate", ["token": third]).json?["payload"]?["ver"])
        #expect(decoded == 1)
        #expect(await h.api(.DELETE, "/logout", ["email": "l@example.com", "password": "wrong"]) == (401, refused))
        #expect(await h.api(.DELETE, "/logout", ["email": "nobody@example.com", "password": "pw"]) == (401, refused))
        #expect(await h.api(.DELETE, "/logout") == (401, refused))
        #expect(await h.api(.DELETE, "/logout", ["email": "L@example.com", "password": "pw"]).status == 200)
        #expect(await h.api(.POST, "/validate", ["token": third]).status == 401)
    }

    @Test(
        "60 requests a minute per address, then 429; other addresses and the off switch unaffected",
        arguments: StorageBackend.allCases)
    func rateLimit(_ backend: StorageBackend) async throws {
        let h = try Harness(backend) { $0.rateLimitsEnabled = true }
        for _ in 0..<60 {
            #expect(await h.api(.POST, "/validate", from: "198.51.100.7").status == 401)
        }
        let response = await h.send(.POST, "/validate", headers: [("Accept", "application/json")], from: "198.51.100.7")
        #expect(response.status.code == 429)
        #expect(try JSONValue.parse(response.body) == .object([("error", "Too many requests.")]))
        #expect(response.headers["Retry-After"] != nil)
        #expect(await h.api(.POST, "/validate", from: "198.51.100.8").status == 401)
        h.limiterClock.advance(2)
        #expect(await h.api(.POST, "/validate", from: "198.51.100.7").status == 401)
        let off = try Harness(backend) { $0.rateLimitsEnabled = false }
        for _ in 0..<70 {
            #expect(await off.api(.POST, "/validate", from: "198.51.100.7").status == 401)
        }
    }

    @Test(
        "the rate limit runs on the monotonic clock: wall-clock steps neither refill it early nor lock out",
        arguments: StorageBackend.allCases)
    func rateLimitIgnoresWallClockSteps(_ backend: StorageBackend) async throws {
        let h = try Harness(backend) { $0.rateLimitsEnabled = true }
        for _ in 0..<60 {
            #expect(await h.api(.POST, "/validate", from: "198.51.100.9").status == 401)
        }
        #expect(await h.api(.POST, "/validate", from: "198.51.100.9").status == 429)
        // Ten minutes ahead on the wall: the bucket is as empty as it was.
        h.clock.advance(600)
        #expect(await h.api(.POST, "/validate", from: "198.51.100.9").status == 429)
        // Twenty minutes back: two real seconds still refill two requests.
        h.clock.advance(-1200)
        h.limiterClock.advance(2)
        #expect(await h.api(.POST, "/validate", from: "198.51.100.9").status == 401)
        #expect(await h.api(.POST, "/validate", from: "198.51.100.9").status == 401)
        #expect(await h.api(.POST, "/validate", from: "198.51.100.9").status == 429)
    }

    @Test("example.txt serves a fresh Argon2id hash of test123; /up answers 200", arguments: StorageBackend.allCases)
    func exampleAndUp(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        let first = await h.send(.GET, "/example.txt")
        let second = await h.send(.GET, "/example.txt")
        #expect(first.status == .ok)
        #expect(first.headers["Content-Type"]?.hasPrefix("text/plain") == true)
        let a = first.text.trimmingCharacters(in: .whitespacesAndNewlines)
        let b = second.text.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(a.hasPrefix("$argon2id$v=19$"))
        #expect(a != b)
        #expect(try Argon2.verify(encoded: a, password: Array("test123".utf8)))
        #expect(await h.send(.GET, "/up").status == .ok)
    }

    @Test(
        "example.txt when the pool takes no more work: 503 with Retry-After, as every 503 of the service",
        arguments: StorageBackend.allCases)
    func exampleBusy(_ backend: StorageBackend) async throws {
        let h = try Harness(backend)
        h.service.pool.shutdown()
        let response = await h.send(.GET, "/example.txt")
        #expect(response.status == .serviceUnavailable)
        #expect(response.text == RemoteHashMessage.busy)
        #expect(response.headers["Retry-After"] == "1")
    }
}
