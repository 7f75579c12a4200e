import Foundation
import Testing

@testable import SocketServer

@Suite("event loop threads", .timeLimit(.minutes(1)))
struct EventLoopThreadTests {
    /// The names of this process's threads, as `top -H` and `perf` show them.
    private func threadNames() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(
            tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
                .map { $0.trimmingCharacters(in: .newlines) })
    }

    @Test("each loop's system thread carries the loop's name")
    func names() async throws {
        let group = try EventLoopGroup(count: 2)
        group.startOnce()
        let wanted: Set = ["postern-loop-0", "postern-loop-1"]
        var names = threadNames()
        for _ in 0..<200 where !names.isSuperset(of: wanted) {
            try await Task.sleep(for: .milliseconds(10))
            names = threadNames()
        }
        await group.shutdownJoining()
        #expect(names.isSuperset(of: wanted), "threads: \(names.sorted())")
    }
}
