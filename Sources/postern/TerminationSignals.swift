import Glibc
import Synchronization

/// SIGTERM and SIGINT, blocked in every thread and taken by the main thread with `sigwait`.
///
/// Once `serve` has called ``arm()``, a signal is a request to drain that ``wait()`` returns for (a
/// signal that came before `wait()` is remembered, later ones change nothing). Before that, and in the
/// operator commands, a signal ends the process as its default action would.
final class TerminationSignals: Sendable {
    static let shared = TerminationSignals()

    private struct State {
        var armed = false
        var arrived = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    private static var set: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        return set
    }

    /// Blocks SIGTERM and SIGINT in the calling thread and in every thread it creates from now on.
    static func blockInEveryThread() {
        var set = Self.set
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// From now on a signal is a request to drain instead of the end of the process.
    func arm() {
        state.withLock { $0.armed = true }
    }

    /// Returns once SIGTERM or SIGINT has arrived after ``arm()`` (at once if one already has).
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.arrived { return true }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Takes the signals for as long as the process lives. On the main thread.
    func takeForever() -> Never {
        var set = Self.set
        while true {
            var number: Int32 = 0
            guard sigwait(&set, &number) == 0 else { continue }
            deliver(number)
        }
    }

    private func deliver(_ number: Int32) {
        let (armed, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard state.armed else { return (false, nil) }
            state.arrived = true
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        guard armed else {
            // Not serving: the default action (the shell sees the process killed by the signal).
            signal(number, SIG_DFL)
            var one = sigset_t()
            sigemptyset(&one)
            sigaddset(&one, number)
            pthread_sigmask(SIG_UNBLOCK, &one, nil)
            raise(number)
            exit(128 + number)
        }
        waiter?.resume()
    }
}
