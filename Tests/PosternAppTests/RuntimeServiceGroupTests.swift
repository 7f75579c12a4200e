import ComputePool
import Foundation
import HTTPServer
import Logging
import MailTransfer
import PosternTestSupport
import Synchronization
import Testing

@testable import PosternApp

/// The runtime as one service group: a test builds it with only the services it needs, and a graceful shutdown (what
/// SIGTERM asks for in `postern serve`) stops them in order, the listeners before the store.
@Suite("runtime service group", .timeLimit(.minutes(1)))
struct RuntimeServiceGroupTests {
    /// Log lines, gathered from a `LineLogHandler`.
    final class Lines: Sendable {
        private let bytes = Mutex<[UInt8]>([])
        func append(_ line: [UInt8]) { bytes.withLock { $0 += line } }
        var all: [String] {
            bytes.withLock { String(decoding: $0, as: UTF8.self) }.split(separator: "\n").map(String.init)
        }
        /// The services that said they stopped, in the order they did.
        var stopped: [String] {
            all.compactMap { line -> String? in
                guard line.contains(" postern-test: stopped "), let range = line.range(of: "service=") else {
                    return nil
                }
                var name = String(line[range.upperBound...])
                if name.hasPrefix("\"") { name = String(name.dropFirst().prefix { $0 != "\"" }) }
                return name
            }
        }
    }

    static let httpOnly = ["database", "worker, fetch and DNS threads", "event loops", "HTTP", "readiness"]

    @Test(
        "a runtime with only HTTP runs just that, and stops HTTP before the threads and the store",
        arguments: StorageBackend.allCases)
    func httpOnlyOrderedShutdown(_ backend: StorageBackend) async throws {
        let lines = Lines()
        let logger = Logger(label: "postern-test") { LineLogHandler(label: $0, level: .debug, write: lines.append) }
        let server = try await TestServer.start(backend, logger: logger, services: .http)
        defer { try? FileManager.default.removeItem(atPath: server.dataDirectory) }
        #expect(server.runtime.serviceNames == Self.httpOnly)
        #expect(server.runtime.smtpListenAddress == nil, "no SMTP listener bound for a runtime without SMTP")
        #expect(try await server.client().request("GET", "/readyz").status == 200)

        await server.shutdown()
        #expect(lines.stopped == Self.httpOnly.reversed(), "\(lines.all)")
        #expect(throws: TestClientError.self) { try TestHTTPClient(port: server.port) }
        await #expect(throws: (any Error).self) { try await server.runtime.database.probeWrite(now: 1) }
    }

    @Test(
        "after the group stops, the worker and DNS threads are joined and take no more work",
        arguments: StorageBackend.allCases)
    func threadsJoined(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend, services: [])
        defer { try? FileManager.default.removeItem(atPath: server.dataDirectory) }
        #expect(server.runtime.serviceNames == ["database", "worker, fetch and DNS threads", "event loops"])
        #expect(try await server.runtime.dnsThreads.run { 1 } == 1)
        #expect(try await server.runtime.pool.run { 2 } == 2)
        await server.shutdown()
        await #expect(throws: WorkerPoolError.self) { try await server.runtime.dnsThreads.run { 1 } }
        await #expect(throws: WorkerPoolError.self) { try await server.runtime.pool.run { 2 } }
    }

    @Test("every service of postern serve, in the order they start", arguments: StorageBackend.allCases)
    func everyService(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        var expected = ["database", "worker, fetch and DNS threads", "key reload"]
        if backend == .postgres {
            expected += ["postern_keys", "postern_mail", "postern_grants"].map { "PostgreSQL LISTEN \($0)" }
        }
        expected += ["purges", "webhooks", "event loops", "SMTP", "HTTP", "readiness"]
        #expect(server.runtime.serviceNames == expected)
    }

    @Test(
        "with outbound delivery on, the outbound dispatcher runs after the webhooks and stops before them and its threads",
        arguments: StorageBackend.allCases)
    func outboundService(_ backend: StorageBackend) async throws {
        let relay = try RelayEndpoint(url: "smtp://127.0.0.1:1")
        let server = try await TestServer.start(backend) {
            $0.outbound.mode = .relay
            $0.outbound.relay = relay
            $0.smtp.hostname = "postern.outbound.test"
        }
        defer { Task { await server.stop() } }
        let names = server.runtime.serviceNames
        let webhooks = try #require(names.firstIndex(of: "webhooks"))
        #expect(names.firstIndex(of: "outbound") == webhooks + 1)
        // Its sessions' threads are joined only after it has stopped.
        #expect(names.firstIndex(of: "outbound threads") == webhooks - 1)
    }

    @Test(
        "a graceful shutdown finishes a request in flight with the store still open, after HTTP stopped accepting",
        arguments: StorageBackend.allCases)
    func drainsInFlightRequest(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend, services: .http)
        defer { try? FileManager.default.removeItem(atPath: server.dataDirectory) }
        let client = try server.client()
        #expect(try await client.request("GET", "/healthz").status == 200)  // accepted and served: not in the backlog
        // Half a request: the connection has a request in flight, which shutdown must let finish.
        client.sendRaw(Array("GET /readyz HTTP/1.1\r\nHost: t\r\n".utf8))
        await server.runtime.completedTurnAfterNow()
        await server.runtime.triggerGracefulShutdown()

        // HTTP stops accepting; the request in flight holds its service (and so every one before it) open.
        var refused = false
        for _ in 0..<500 where !refused {
            refused = (try? TestHTTPClient(port: server.port)) == nil
            if !refused { try await Task.sleep(for: .milliseconds(10)) }
        }
        try #require(refused, "HTTP kept accepting after the graceful shutdown began")

        client.sendRaw(Array("\r\n".utf8))
        let response = try await client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == #"{"status":"ready"}"#, "the store was still open to answer it")
        #expect(response.header("Connection") == "close")
        try await server.running.value
        await #expect(throws: (any Error).self) { try await server.runtime.database.probeWrite(now: 1) }
    }
}
