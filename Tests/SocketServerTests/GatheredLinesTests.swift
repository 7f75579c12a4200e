import Foundation
import Synchronization
import Testing

@testable import SocketServer

/// The access log's buffering: lines gathered on a loop are written when the buffer fills, when the oldest
/// has waited the flush interval, on request (SIGUSR1) and at shutdown; never lost, never before.
@Suite("gathered lines", .timeLimit(.minutes(1)))
struct GatheredLinesTests {
    final class Capture: LineSink {
        let writes = Mutex<[String]>([])
        func write(_ bytes: UnsafeRawBufferPointer) {
            writes.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
        }
        var all: [String] { writes.withLock { $0 } }
    }

    /// A clock that moves only when told to.
    final class ManualClock: Sendable {
        let now = Atomic<UInt64>(1_000_000_000)
        func advance(_ nanoseconds: UInt64) { now.add(nanoseconds, ordering: .relaxed) }
    }

    private func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<300 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        return condition()
    }

    /// Appends `text` on `loop`, its writer given `extraRoom` bytes more room than it uses.
    private func append(_ text: String, on loop: EventLoop, extraRoom: Int = 0) {
        loop.execute {
            let bytes = Array(text.utf8)
            loop.appendLine(atMost: bytes.count + extraRoom) { room in
                _ = room.initialize(from: bytes)
                return bytes.count
            }
        }
    }

    @Test("lines wait for the flush interval, then go out in one write; SIGUSR1's flush and shutdown write the rest")
    func flushes() async throws {
        let clock = ManualClock()
        let capture = Capture()
        let group = try EventLoopGroup(
            count: 1, clock: { clock.now.load(ordering: .relaxed) }, pollInterval: .milliseconds(5), lineSink: capture)
        group.startOnce()
        let loop = group.loops[0]
        append("one\n", on: loop)
        append("two\n", on: loop)
        for _ in 0..<3 { await loop.completedTurnAfterNow() }  // turns with the clock standing still
        #expect(capture.all.isEmpty)

        clock.advance(EventLoop.lineFlushInterval)
        #expect(try await eventually { capture.all == ["one\ntwo\n"] })

        append("three\n", on: loop)
        loop.flushGatheredLines()
        #expect(try await eventually { capture.all == ["one\ntwo\n", "three\n"] })

        append("four\n", on: loop)
        await loop.completedTurnAfterNow()
        #expect(capture.all.count == 2)
        await group.shutdownJoining()
        #expect(capture.all == ["one\ntwo\n", "three\n", "four\n"])
    }

    /// A pipe on the loop whose readiness adds one line per byte read, as a connection's requests add theirs
    /// during the turn that read them.
    final class LineOnReadable: LoopRegistrant, @unchecked Sendable {  // touched only on its loop
        let fd: Int32
        let owner = ObjectIdentifier(LineOnReadable.self)
        let deadline: UInt64? = nil
        var timerEntry: UInt64? = nil
        unowned let loop: EventLoop

        init(readEnd: Int32, loop: EventLoop) {
            fd = readEnd
            self.loop = loop
        }
        func ready(_ events: UInt32) {
            var byte: UInt8 = 0
            while read(fd, &byte, 1) == 1 {
                loop.appendLine(atMost: 2) { room in
                    room[0] = byte
                    room[1] = UInt8(ascii: "\n")
                    return 2
                }
            }
        }
        func timerFired() {}
        func beginShutdown() { loop.deregister(self) }
        func forceClose() { loop.deregister(self) }
    }

    @Test("lines added by a turn's events wait too, though the clock read after the wake-up is later")
    func linesNewerThanWakeUp() async throws {
        // Every reading is one nanosecond later than the last, as a real clock moves between a turn's
        // wake-up and the lines its requests add.
        let ticks = Atomic<UInt64>(1_000_000_000)
        let capture = Capture()
        let group = try EventLoopGroup(
            count: 1, clock: { ticks.add(1, ordering: .relaxed).newValue }, pollInterval: .milliseconds(5),
            lineSink: capture)
        group.startOnce()
        let loop = group.loops[0]
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0 && fcntl(ends[0], F_SETFL, O_NONBLOCK) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let registrant = LineOnReadable(readEnd: ends[0], loop: loop)
        loop.execute { try! loop.register(registrant, interest: Epoll.readable) }
        for letter in "abc".utf8 {
            var byte = letter
            #expect(write(ends[1], &byte, 1) == 1)
            await loop.completedTurnAfterNow()  // each byte read in a turn of its own
        }
        await loop.completedTurnAfterNow()
        #expect(capture.all.isEmpty)
        loop.flushGatheredLines()
        #expect(try await eventually { capture.all == ["a\nb\nc\n"] })
        await group.shutdownJoining()
    }

    /// One started loop whose clock stands still, gathering into a new capture.
    private func startedLoop() throws -> (Capture, EventLoopGroup) {
        let capture = Capture()
        let group = try EventLoopGroup(count: 1, clock: { 1 }, pollInterval: .milliseconds(5), lineSink: capture)
        group.startOnce()
        return (capture, group)
    }

    @Test("a full buffer is written at once, whatever the clock")
    func fullBuffer() async throws {
        let (capture, group) = try startedLoop()
        let loop = group.loops[0]
        let line = String(repeating: "x", count: 1023) + "\n"
        for _ in 0..<(EventLoop.lineBufferLimit / 1024) { append(line, on: loop) }
        #expect(try await eventually { capture.all.count == 1 })
        #expect(capture.all.first?.utf8.count == EventLoop.lineBufferLimit)
        await group.shutdownJoining()
    }

    @Test("a line longer than the buffer goes out whole; a writer given more room than it uses adds only its bytes")
    func longLineAndSpareRoom() async throws {
        let (capture, group) = try startedLoop()
        let loop = group.loops[0]
        append("first\n", on: loop, extraRoom: 500)
        let long = String(repeating: "y", count: 5 * EventLoop.lineBufferLimit) + "\n"
        append(long, on: loop)
        #expect(try await eventually { capture.all.count == 1 })
        #expect(capture.all.first == "first\n" + long)
        append("after\n", on: loop, extraRoom: 3)
        await group.shutdownJoining()
        #expect(capture.all.count == 2 && capture.all.last == "after\n")
    }
}
