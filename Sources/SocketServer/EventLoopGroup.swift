import Foundation
import Glibc
import Synchronization

/// The event loops a process serves on: one per core by default, shared by every protocol's server
/// (each loop accepts on the HTTP and SMTP listeners and serves what it accepted).
///
/// `Sendable`: the loops are fixed at creation; each confines its own state.
public final class EventLoopGroup: Sendable {
    /// The loops, in index order.
    public let loops: [EventLoop]
    private let started = Atomic<Bool>(false)

    /// Creates `count` loops (their threads start with `start()`).
    /// - Parameters:
    ///   - count: how many loops; at least one. Default: the active processor count, since handlers
    ///     on a loop never block.
    ///   - clock: the monotonic clock in nanoseconds for every deadline; injected so tests can drive it.
    ///   - pollInterval: the longest epoll wait, so deadlines of an injected clock, and timers armed
    ///     from other threads, are noticed within it. Default 500 ms.
    ///   - lineSink: where lines gathered with `EventLoop.appendLine` go (the access log); nil keeps none.
    /// - Throws: `SystemCallError` when an epoll set cannot be created (out of descriptors).
    public init(
        count: Int = ProcessInfo.processInfo.activeProcessorCount,
        clock: @escaping @Sendable () -> UInt64 = EventLoopGroup.monotonicNanoseconds,
        pollInterval: Duration = .milliseconds(500), lineSink: (any LineSink)? = nil
    ) throws {
        loops = try (0..<max(1, count)).map {
            try EventLoop(index: $0, clock: clock, pollInterval: pollInterval, lineSink: lineSink)
        }
    }

    /// Starts every loop's thread; later calls do nothing.
    public func startOnce() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        for loop in loops { loop.start() }
    }

    /// Stops every loop and joins its thread (blocking). Call after the servers on it have shut down.
    public func shutdown() {
        for loop in loops { loop.stopAndJoin() }
    }

    /// `shutdown()` on a thread of its own, so that an async caller does not block its executor.
    public func shutdownJoining() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                self.shutdown()
                continuation.resume()
            }
        }
    }

    /// `CLOCK_MONOTONIC` in nanoseconds: what `DispatchTime.now().uptimeNanoseconds` reads on Linux, read directly
    /// (read twice per request, so without Dispatch's layers).
    @Sendable public static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// Returns once every loop has completed a turn that began after the call (see
    /// ``EventLoop/completedTurnAfterNow()``).
    public func completedTurnAfterNow() async {
        for loop in loops { await loop.completedTurnAfterNow() }
    }
}
