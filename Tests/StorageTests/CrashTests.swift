import Foundation
import Testing
@testable import Storage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Crash safety")
struct CrashTests {
    @Test("after kill -9 of a writer mid-write, every acknowledged row is there and integrity_check is ok")
    func killedWriterLosesNoAcknowledgedRow() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/crash.sqlite"
            // Set up and warm the exact code path the child runs, so the child (a copy of a
            // multi-threaded process) needs no runtime lock another thread might have held at fork.
            do {
                let connection = try SQLiteConnection(path: path, mode: .writer)
                try connection.execute(
                    """
                    CREATE TABLE acked(id INTEGER PRIMARY KEY, payload BLOB NOT NULL) STRICT;
                    CREATE TABLE counter(id INTEGER PRIMARY KEY CHECK (id = 1), last INTEGER NOT NULL) STRICT;
                    INSERT INTO counter VALUES (1, 0);
                    """)
                try connection.transaction {
                    try connection.run("UPDATE counter SET last = ? WHERE id = 1", [.integer(0)])
                }
                _ = "\(Int64(1))\n".utf8.count
            }

            var pipeEnds: [Int32] = [0, 0]
            #expect(pipe(&pipeEnds) == 0)
            let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
            let child = fork()
            #expect(child >= 0)
            if child == 0 {
                close(readEnd)
                childWriter(path: path, ackTo: writeEnd)
            }
            close(writeEnd)
            defer { close(readEnd) }

            // Read acknowledgements for up to 3 s or 400 commits, then kill the writer mid-stream.
            var buffer = PipeLines()
            let deadline = Date().addingTimeInterval(3)
            while buffer.ids.count < 400, Date() < deadline {
                var poller = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, 100) > 0, !buffer.read(from: readEnd) { break }
            }
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
            // Rows acknowledged after our last read are still in the pipe: read until EOF.
            while buffer.read(from: readEnd) {}

            #expect(status & 0x7f == SIGKILL, "the child must die by SIGKILL, not exit (status \(status))")
            #expect(buffer.ids.count >= 20, "the child acknowledged only \(buffer.ids.count) commits")

            let database = try Database.open(path: path, readerCount: 1, logger: testLogger)
            let check = try database.readSync { try $0.query("PRAGMA integrity_check") }
            #expect(check.first?.values.first == .text("ok"))
            let stored = try database.readSync { connection in
                Set(try connection.query("SELECT id FROM acked").compactMap { $0.int("id") })
            }
            let missing = buffer.ids.filter { !stored.contains($0) }
            #expect(missing.isEmpty, "acknowledged but lost: \(missing.prefix(10))")
            // Each commit wrote its row and the counter together: the two agree, and ids have no gaps.
            let last = try database.readSync { try $0.query("SELECT last FROM counter").first?.int("last") }
            #expect(last == stored.max())
            #expect(Int64(stored.count) == (stored.max() ?? 0))
            #expect((buffer.ids.max() ?? 0) <= (stored.max() ?? 0))
            // The reopened database keeps accepting writes.
            try database.writeSync { try $0.run("INSERT INTO acked(id, payload) VALUES (?, ?)", [.integer(1_000_000), .blob([1])]) }
        }
    }

    /// The child: commits rows forever with Storage's writer connection and acknowledges each commit
    /// on the pipe only after `COMMIT` returned. Never returns.
    private func childWriter(path: String, ackTo descriptor: Int32) -> Never {
        do {
            let connection = try SQLiteConnection(path: path, mode: .writer)
            let payload = [UInt8](repeating: 0xC3, count: 6_000)  // two pages per row: commits span pages
            var id: Int64 = 0
            while true {
                id += 1
                try connection.transaction {
                    try connection.run("INSERT INTO acked(id, payload) VALUES (?, ?)", [.integer(id), .blob(payload)])
                    try connection.run("UPDATE counter SET last = ? WHERE id = 1", [.integer(id)])
                }
                let line = Array("\(id)\n".utf8)
                var written = 0
                while written < line.count {
                    let result = line[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                    if result <= 0 { _exit(4) }
                    written += result
                }
            }
        } catch {
            _exit(3)
        }
    }
}

/// Newline-separated ids read from a pipe.
private struct PipeLines {
    var ids: [Int64] = []
    private var partial: [UInt8] = []

    /// Reads what is available; false at end of file or error.
    mutating func read(from descriptor: Int32) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4_096)
        let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }
        for byte in chunk[..<count] {
            if byte == UInt8(ascii: "\n") {
                if let id = Int64(String(decoding: partial, as: UTF8.self)) { ids.append(id) }
                partial.removeAll(keepingCapacity: true)
            } else {
                partial.append(byte)
            }
        }
        return true
    }
}
