import Foundation
import PosternTestSupport
import SMTPServer
import Storage
import Testing

@testable import PosternApp
@testable import ServerMetrics

/// Who may read `/metrics` (its own listener, a bearer token) and what it shows (every family with its help text).
@Suite("Metrics: access and families")
struct MetricsAccessTests {
    static let token = "a metrics token of at least thirty-two characters"

    @Test(
        "with POSTERN_METRICS_LISTEN, /metrics is served on its own listener only, which stops with the server",
        arguments: StorageBackend.allCases)
    func ownListener(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.observability.metricsListen = "127.0.0.1:0" }
        let address = try #require(server.runtime.metricsListenAddress)
        let port = try #require(Int(address.split(separator: ":").last ?? ""))
        #expect(port != server.port)

        let main = try await server.client().request("GET", "/metrics")
        #expect(main.status == 404)
        #expect(!main.text.contains("postern_http_requests_total"))
        let scraper = try TestHTTPClient(port: port)
        let scrape = try await scraper.request("GET", "/metrics")
        #expect(scrape.status == 200)
        #expect(scrape.text.contains("# TYPE postern_http_requests_total counter"))
        // One route: the API is not reachable through it.
        #expect(try await scraper.request("GET", "/healthz").status == 404)
        #expect(try await scraper.request("GET", "/.well-known/jwks.json").status == 404)

        await server.stop()
        #expect(throws: TestClientError.self) { _ = try TestHTTPClient(port: port) }
    }

    @Test(
        "with POSTERN_METRICS_TOKEN, /metrics is 401 with WWW-Authenticate: Bearer without the token or with another",
        arguments: StorageBackend.allCases)
    func bearerToken(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.observability.metricsToken = Self.token }
        defer { Task { await server.stop() } }
        let client = try server.client()
        let wrong = [("Authorization", "Bearer " + Self.token.dropLast() + "X")]
        for headers in [[], wrong, [("Authorization", "Basic eDp5")]] {
            let refused = try await client.request("GET", "/metrics", headers: headers)
            #expect(refused.status == 401)
            #expect(refused.header("WWW-Authenticate") == "Bearer")
            #expect(!refused.text.contains("postern_"))
        }
        let scrape = try await client.request("GET", "/metrics", headers: [("Authorization", "Bearer " + Self.token)])
        #expect(scrape.status == 200)
        #expect(scrape.text.contains("# TYPE postern_http_requests_total counter"))
    }

    @Test(
        "/openapi.json documents /metrics' 401 with WWW-Authenticate and its bearer scheme",
        arguments: StorageBackend.allCases)
    func documentedInOpenAPI(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let document = try await server.client().request("GET", "/openapi.json").json()
        let paths = try #require(document["paths"] as? [String: Any])
        let get = try #require((paths["/metrics"] as? [String: Any])?["get"] as? [String: Any])
        let unauthorized = try #require((get["responses"] as? [String: Any])?["401"] as? [String: Any])
        #expect((unauthorized["headers"] as? [String: Any])?["WWW-Authenticate"] != nil)
        let schemes = (document["components"] as? [String: Any])?["securitySchemes"] as? [String: Any]
        #expect(schemes?["metricsBearer"] != nil)
    }

    @Test("with both set, the token guards the own listener too", arguments: StorageBackend.allCases)
    func tokenOnListener(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) {
            $0.observability.metricsListen = "127.0.0.1:0"
            $0.observability.metricsToken = Self.token
        }
        defer { Task { await server.stop() } }
        let address = try #require(server.runtime.metricsListenAddress)
        let scraper = try TestHTTPClient(port: try #require(Int(address.split(separator: ":").last ?? "")))
        #expect(try await scraper.request("GET", "/metrics").status == 401)
        let scrape = try await scraper.request("GET", "/metrics", headers: [("Authorization", "Bearer " + Self.token)])
        #expect(scrape.status == 200)
    }

    @Test("the metrics settings are validated: host:port or [v6]:port, a token of 32 characters or more")
    func settings() throws {
        for listen in ["9090", "127.0.0.1", "::1:9090", ":9090", "127.0.0.1:99999"] {
            #expect(throws: ConfigurationError.self) {
                try ConfigurationLoader.parse { $0 == "POSTERN_METRICS_LISTEN" ? listen : nil }
            }
        }
        let v6 = try ConfigurationLoader.parse { $0 == "POSTERN_METRICS_LISTEN" ? "[::1]:9090" : nil }
        let address = v6.observability.metricsListenAddress
        #expect(address?.host == "::1" && address?.port == 9090)
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.parse { $0 == "POSTERN_METRICS_TOKEN" ? "short" : nil }
        }
    }

    @Test(
        "every family /metrics shows has # HELP; build info, storage size, the outbox and both queues are among them",
        arguments: StorageBackend.allCases)
    func everyFamilyHasHelp(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        _ = try await server.runtime.database.write { connection in
            try connection.run(
                "INSERT INTO mail_outbox (id, sender, recipients, raw, created_at) VALUES (?, ?, ?, ?, ?)",
                [
                    .text("metrics-test"), .text("a@mail.localhost"), .text("[\"b@example.com\"]"), .blob([0x61]),
                    .integer(1),
                ])
        }
        let text = try await server.client().request("GET", "/metrics").text
        let lines = text.split(separator: "\n")
        let typed = lines.filter { $0.hasPrefix("# TYPE ") }.map { String($0.split(separator: " ")[2]) }
        let helped = Set(lines.filter { $0.hasPrefix("# HELP ") }.map { String($0.split(separator: " ")[2]) })
        #expect(typed.count > 20)
        for family in typed {
            #expect(helped.contains(family), "\(family) has no # HELP line")
            #expect(MetricFamilies.help[family] != nil, "\(family) is not listed in MetricFamilies")
        }
        #expect(text.contains("postern_build_info{version=\"\(PosternVersion.text)\"} 1"))
        let storage = try #require(lines.first { $0.hasPrefix("postern_storage_bytes ") })
        #expect((Double(storage.split(separator: " ")[1]) ?? 0) > 0)
        #expect(lines.contains("postern_outbox_messages 1.0") || lines.contains("postern_outbox_messages 1"))
        for state in ["queued", "deferred"] {
            let series = "postern_outbound_queue_messages{state=\"\(state)\"}"
            #expect(lines.contains("\(series) 0.0") || lines.contains("\(series) 0"), "\(series) is read and empty")
        }
        #expect(typed.contains("postern_outbound_oldest_queued_seconds"))
        #expect(typed.contains("postern_webhook_queue_depth"))
    }

    @Test("SMTP replies are counted by class and command from the transaction's record")
    func smtpReplyClasses() throws {
        let metrics = PosternMetrics.shared
        func count(_ replyClass: String, _ command: String) -> Double {
            let series = "postern_smtp_replies_total{class=\"\(replyClass)\",command=\"\(command)\"} "
            let text = String(decoding: metrics.exposition(.init(openConnections: 0, mailWaiters: 0)), as: UTF8.self)
            return text.split(separator: "\n").first { $0.hasPrefix(series) }.flatMap {
                Double($0.dropFirst(series.count))
            } ?? 0
        }
        let before = [count("2xx", "rcpt"), count("5xx", "rcpt"), count("4xx", "data"), count("4xx", "connect")]
        metrics.smtpEvent(
            .transactionEnded(
                SMTPTransactionRecord(
                    client: "192.0.2.1", mailFrom: "a@example.com",
                    recipients: [.init(address: "x@mail.localhost", code: 250), .init(address: "y@other", code: 550)],
                    size: 10, result: 451)))
        metrics.smtpEvent(.sessionRefused)
        let after = [count("2xx", "rcpt"), count("5xx", "rcpt"), count("4xx", "data"), count("4xx", "connect")]
        #expect(zip(before, after).map { $1 - $0 } == [1, 1, 1, 1])
    }

    @Test("docs/metrics.md lists every family, and no family that does not exist")
    func documented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("docs/metrics.md"), encoding: .utf8)
        let families = Set(MetricFamilies.help.keys)
        for family in families { #expect(docs.contains("`\(family)"), "docs/metrics.md lacks \(family)") }
        let named = docs.matches(of: /`(postern_[a-z0-9_]+)/).map { String($0.output.1) }
        for name in named { #expect(families.contains(name), "docs/metrics.md names \(name), which is not a family") }
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("docs/metrics.md"))
    }
}
