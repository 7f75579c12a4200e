import AuthCrypto
import Foundation
import JWT
import PosternTestSupport
import Testing

@testable import PosternApp

@Suite("Common endpoints, end to end")
struct CommonEndpointTests {
    @Test("healthz, readyz and JSON 404/405 with Allow", arguments: StorageBackend.allCases)
    func healthAndErrors(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let client = try server.client()

        let health = try await client.request("GET", "/healthz")
        #expect(health.status == 200)
        #expect(health.text == #"{"status":"ok"}"#)
        #expect(health.header("Content-Type") == "application/json; charset=utf-8")
        #expect(health.header("X-Content-Type-Options") == "nosniff")
        #expect(health.header("X-Request-Id")?.isEmpty == false)

        let ready = try await client.request("GET", "/readyz")
        #expect(ready.status == 200)
        #expect(ready.text == #"{"status":"ready"}"#)

        let missing = try await client.request("GET", "/no/such/path")
        #expect(missing.status == 404)
        #expect(try missing.json()["error"] as? String == "not_found")

        let wrongMethod = try await client.request("POST", "/healthz")
        #expect(wrongMethod.status == 405)
        #expect(try wrongMethod.json()["error"] as? String == "method_not_allowed")
        #expect(wrongMethod.header("Allow")?.contains("GET") == true)
    }

    @Test(
        "JWKS lists the RSA key (kty, kid, alg, use, n, e), then the Ed25519 key (OKP, crv, x), then the P-256 key (EC)",
        arguments: StorageBackend.allCases)
    func jwks(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let response = try await server.client().request("GET", "/.well-known/jwks.json")
        #expect(response.status == 200)
        let keys = try #require(try response.json()["keys"] as? [[String: Any]])
        #expect(keys.map { $0["kty"] as? String } == ["RSA", "OKP", "EC"])
        for key in keys {
            #expect(key["use"] as? String == "sig")
            #expect((key["kid"] as? String)?.isEmpty == false)
            #expect(key["d"] == nil)
        }
        let rsa = keys[0]
        #expect(Set(rsa.keys) == ["kty", "kid", "alg", "use", "n", "e"])
        #expect(rsa["alg"] as? String == "RS256")
        #expect(((rsa["n"] as? String)?.count ?? 0) >= 342)  // 2048-bit modulus in base64url
        #expect(rsa["e"] as? String == "AQAB")
        let okp = keys[1]
        #expect(Set(okp.keys) == ["kty", "kid", "alg", "use", "crv", "x"])
        #expect(okp["alg"] as? String == "EdDSA")
        #expect(okp["crv"] as? String == "Ed25519")
        let x = try #require((okp["x"] as? String).flatMap(Base64URL.decode))
        #expect(x.count == 32)
        #expect(okp["kid"] as? String == JWK.okpThumbprint(x: x))
        #expect(server.runtime.keys.activeKID(for: .edDSA) == okp["kid"] as? String)
        let ec = keys[2]
        #expect(Set(ec.keys) == ["kty", "kid", "alg", "use", "crv", "x", "y"])
        #expect(ec["alg"] as? String == "ES256" && ec["crv"] as? String == "P-256")
        #expect(server.runtime.keys.activeKID(for: .es256) == ec["kid"] as? String)
    }

    @Test(
        "metrics expose request series by route, answered at once or later, and open connections",
        arguments: StorageBackend.allCases)
    func metrics(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let client = try server.client()
        _ = try await client.request("GET", "/healthz")
        _ = try await client.request("GET", "/readyz")  // answered by a task, not on the loop
        let response = try await client.request("GET", "/metrics")
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("text/plain") == true)
        #expect(response.text.contains(#"postern_http_requests_total{route="/healthz",method="GET",status="200"}"#))
        #expect(response.text.contains(#"postern_http_requests_total{route="/readyz",method="GET",status="200"}"#))
        // The latency buckets in seconds, as Prometheus's default spelling of each bound.
        let series = #"postern_http_request_duration_seconds_bucket{route="/healthz",method="GET",status="200""#
        for bound in ["0.0001", "0.00025", "0.001", "0.5", "1.0", "5.0", "+Inf"] {
            #expect(response.text.contains(series + #",le="\#(bound)"} "#))
        }
        #expect(response.text.contains("postern_open_connections"))
        #expect(response.text.contains("postern_mail_waiting_requests 0"))
    }

    @Test(
        "metrics record unknown method tokens as one 'other' series, so clients cannot grow the registry",
        arguments: StorageBackend.allCases)
    func metricsMethodCardinality(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let client = try server.client()
        let series = #"postern_http_requests_total{route="unmatched",method="other",status="404"}"#
        // The registry is process-wide: count what this test adds.
        func count(_ text: String) -> Int {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(series + " ") }) else { return 0 }
            return Int(line.dropFirst(series.count + 1)) ?? -1
        }
        let before = count(try await client.request("GET", "/metrics").text)
        for index in 0..<40 {
            let response = try await client.request("BREW\(index)", "/no/such/path")
            #expect(response.status == 404)
        }
        let text = try await client.request("GET", "/metrics").text
        #expect(!text.contains("BREW"))
        // At least this test's 40: the other backend's case may run at once in the same process (without
        // --no-parallel) and add its own to the one series.
        #expect(count(text) >= before + 40)
    }

    @Test("the OpenAPI document is 3.1 and lists the shared paths", arguments: StorageBackend.allCases)
    func openAPI(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let document = try await server.client().request("GET", "/openapi.json").json()
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: Any])
        for path in ["/healthz", "/readyz", "/metrics", "/.well-known/jwks.json", "/openapi.json"] {
            #expect(paths[path] != nil, "missing \(path)")
        }
    }

    @Test(
        "the served document's mailbox address pattern names this server's domains and no other",
        arguments: StorageBackend.allCases)
    func openAPIAddressPattern(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) {
            $0.mailbox.domains = ["box.test", "mail.localhost"]
            $0.mailbox.proDomains = ["pro.test"]
        }
        defer { Task { await server.stop() } }
        let document = try await server.client().request("GET", "/openapi.json").json()
        let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let create = schemas?["CreateAccountRequest"] as? [String: Any]
        let address = (create?["properties"] as? [String: Any])?["address"] as? [String: Any]
        let pattern = try #require(address?["pattern"] as? String)
        let regex = try NSRegularExpression(pattern: pattern)
        func matches(_ text: String) -> Bool {
            regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
        for accepted in ["a@box.test", "Demo.User_1-x@mail.localhost", "z9@pro.test"] {
            #expect(matches(accepted), "\(accepted)")
        }
        for refused in [
            "@box.test", "a@boxXtest", "a@other.test", "-a@box.test", "a..b@box.test", "a@box.test.evil", "",
        ] {
            #expect(!matches(refused), "\(refused)")
        }
    }

    @Test("a restart over the same data directory keeps the keys", arguments: StorageBackend.allCases)
    func keysStableAcrossRestart(_ backend: StorageBackend) async throws {
        let first = try await TestServer.start(backend)
        let before = try await first.client().request("GET", "/.well-known/jwks.json").text
        await first.shutdown()
        let second = try await TestServer.start(backend) { $0.storage.dataDirectory = first.dataDirectory }
        defer { Task { await second.stop() } }
        let after = try await second.client().request("GET", "/.well-known/jwks.json").text
        #expect(before == after)
    }
}
