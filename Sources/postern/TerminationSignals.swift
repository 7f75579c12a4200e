import Glibc
import Synchronization

/// SIGTERM, SIGINT and SIGUSR1, blocked in every thread and taken by the main thread with `sigwait`.
///
/// Once `serve` has called ``arm(onUserSignal:)``, SIGTERM or SIGINT is a request to drain that ``wait()``
/// returns for (a signal that came before `wait()` is remembered, later ones change nothing), and SIGUSR1
/// runs the given action (writing the gathered access log). Before that, and in the operator commands, a
/// signal ends the process as its default action would.
final class TerminationSignals: Sendable {
    static let shared = TerminationSignals()

    private struct State {
        var armed = false
        var onUserSignal: (@Sendable () -> Void)?
        var arrived = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    private static var set: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGUSR1)
        return set
    }

    /// Blocks the three signals in the calling thread and in every thread it creates from now on.
    static func blockInEveryThread() {
        var set = Self.set
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// From now on SIGTERM and SIGINT are a request to drain instead of the end of the process, and
    /// SIGUSR1 runs `onUserSignal` (on the main thread).
    func arm(onUserSignal: @escaping @Sendable () -> Void) {
        state.withLock {
            $0.armed = true
            $0.onUserSignal = onUserSignal
        }
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
        if number == SIGUSR1, let action = state.withLock({ $0.onUserSignal }) {
            action()
            return
        }
        let (armed, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard state.armed, number != SIGUSR1 else { return (false, nil) }
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
