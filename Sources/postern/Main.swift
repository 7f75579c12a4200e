import Glibc

/// The process entry point: the command runs as a task while the main thread takes SIGTERM and SIGINT
/// with `sigwait`.
///
/// Not `dispatchMain()`, which an async `@main` parks the main thread in on Linux: with the signals
/// blocked in every thread from the first instruction, no thread is ever interrupted by them and no
/// handler runs in signal context; and valgrind (3.19, Debian's) runs the server, where it crashes on
/// `dispatchMain`'s exit of the main thread, so `scripts/instructions` can count instructions per request.
@main
enum Main {
    static func main() {
        TerminationSignals.blockInEveryThread()  // before any thread exists, so every thread inherits it
        Task.detached {  // detached: `main` is on the main actor, whose queue nothing drains here
            await Postern.main()
            exit(0)
        }
        TerminationSignals.shared.takeForever()
    }
}
