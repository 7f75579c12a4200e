import Foundation
import Logging
import PosternTestSupport
import Storage
import Synchronization
import Testing

@testable import PostgresClient

@Suite("PostgreSQL LISTEN", .serialized, .timeLimit(.minutes(1)))
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
}
