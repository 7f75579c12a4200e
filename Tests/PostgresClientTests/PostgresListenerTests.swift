import Foundation
import Logging
import PosternTestSupport
import Storage
import Synchronization
import Testing

@testable import PostgresClient

@Suite("PostgreSQL LISTEN", .onPostgres, .serialized, .timeLimit(.minutes(1)))
struct PostgresListenerTests {
    final class Counter: Sendable {
        private let value = Mutex(0)
        var count: Int { value.withLock { $0 } }
        func add() { value.withLock { $0 += 1 } }
    }

    /// Waits up to two seconds for `counter` to reach `target`.
    func wait(for target: Int, _ counter: Counter) async throws -> Int {
        for _ in 0..<100 where counter.count < target {
            try await Task.sleep(for: .milliseconds(20))
        }
        return counter.count
    }

    @Test("a NOTIFY from another connection reaches the listener; one on another channel does not")
    func notification() async throws {
        let url = try PostgresTestServer.shared().freshDatabase()
        let heard = Counter()
        let listener = PostgresListener(url: url, channel: "postern_test", logger: Logger(label: "test")) {
            heard.add()
        }
        defer { listener.stop() }
        // Once connected, the listener reports once (for whatever was sent while nobody listened).
        #expect(try await wait(for: 1, heard) == 1)
        let sender = try PostgresConnection(url: url)
        _ = try sender.query("SELECT pg_notify('postern_other', '')", [])
        _ = try sender.query("SELECT pg_notify('postern_test', '')", [])
        #expect(try await wait(for: 2, heard) == 2)
        try await Task.sleep(for: .milliseconds(100))
        #expect(heard.count == 2)
    }

    @Test("after the server restarts, the listener connects again, reports once, and hears the next NOTIFY")
    func reconnects() async throws {
        let server = try PostgresTestServer.dedicated()
        let url = try server.freshDatabase()
        let heard = Counter()
        let listener = PostgresListener(url: url, channel: "postern_test", logger: Logger(label: "test")) {
            heard.add()
        }
        defer { listener.stop() }
        #expect(try await wait(for: 1, heard) == 1)
        try server.restart()
        var after = 0
        for _ in 0..<5 where after < 2 { after = try await wait(for: 2, heard) }
        #expect(after == 2)
        let sender = try PostgresConnection(url: url)
        _ = try sender.query("SELECT pg_notify('postern_test', '')", [])
        #expect(try await wait(for: 3, heard) == 3)
    }

    /// The payloads (nil for a (re)connection) a listener handed over, in order.
    final class Heard: Sendable {
        private let value = Mutex<[String?]>([])
        var all: [String?] { value.withLock { $0 } }
        func add(_ payloads: [String]?) { value.withLock { $0 += payloads.map { $0.map(Optional.some) } ?? [nil] } }
    }

    @Test("a listener left on a server the writes no longer reach (still writable) finds the read-write one by its probe")
    func followsTheReadWriteServer() async throws {
        // Two servers behind one multi-host URL, as a Patroni cluster's old leader (first in the URL, still writable
        // for the session it has) and the new one; a new session on the old one is read-only, so libpq goes on to
        // the second.
        let first = try PostgresTestServer.shared()
        let second = try PostgresTestServer.dedicated()
        let firstURL = try #require(URLComponents(string: try first.freshDatabase()))
        let name = String(firstURL.path.dropFirst())
        try PostgresConnection(url: second.url).execute("CREATE DATABASE \(name)")
        let secondPort = try #require(URLComponents(string: second.url)?.port)
        let url = "postgres://postgres@127.0.0.1:\(try #require(firstURL.port)),127.0.0.1:\(secondPort)/\(name)"
            + "?target_session_attrs=read-write&connect_timeout=5"
        var timing = PostgresListener.Timing()
        timing.probeEvery = .milliseconds(200)
        let heard = Heard()
        let listener = PostgresListener(url: url, channel: "postern_test", logger: Logger(label: "test"), timing: timing) {
            heard.add($0)
        }
        defer { listener.stop() }
        try await waitUntil("the listener connects") { heard.all.count >= 1 }

        try PostgresConnection(url: first.url).execute("ALTER DATABASE \(name) SET default_transaction_read_only = on")
        // The writes now go to the second server, and so does their NOTIFY: it must reach the listener.
        let deadline = ContinuousClock.now + .seconds(30)
        while !heard.all.contains("after"), ContinuousClock.now < deadline {
            let sender = try PostgresConnection(url: url)
            #expect(try sender.query("SELECT inet_server_port() AS port", []).first?["port"] == .integer(Int64(secondPort)))
            _ = try sender.query("SELECT pg_notify('postern_test', 'after')", [])
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(heard.all.contains("after"))
        #expect(heard.all.filter { $0 == nil }.count >= 2, "the listener never reconnected (so never said so)")
        #expect(!heard.all.contains { $0?.hasPrefix(PostgresListener.probePrefix) == true }, "a probe was handed over")
    }
}
