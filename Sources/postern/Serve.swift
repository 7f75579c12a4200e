import ArgumentParser
import Dispatch
import Foundation
import PosternApp

/// `postern serve`: applies pending migrations, serves until SIGTERM or SIGINT, then drains and exits 0.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the three auth APIs (applies pending migrations first).")

    @OptionGroup var options: ConfigurationOptions

    func run() async throws {
        let configuration = try await options.load()
        let logger = bootstrapLogging(level: configuration.logLevel)
        let runtime = try await PosternRuntime.build(configuration: configuration, logger: logger)
        let port = try runtime.start()
        // Scripts and test suites read this line to learn the port when POSTERN_PORT=0.
        // Written unbuffered so that a pipe sees it at once.
        FileHandle.standardOutput.write(Data("postern listening on http://\(configuration.host):\(port)\n".utf8))
        await waitForTerminationSignal()
        logger.notice("shutting down: finishing requests in flight")
        await runtime.shutdown()
        logger.notice("stopped")
        // Every request is answered and every acknowledged write is already durable (WAL, synchronous=FULL),
        // so leave without running atexit handlers: OpenSSL's cleanup frees its tables while idle Dispatch
        // and event-loop threads may still touch them, which crashed about one exit in twenty.
        _exit(0)
    }

    /// Suspends until SIGTERM or SIGINT arrives.
    private func waitForTerminationSignal() async {
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let queue = DispatchQueue(label: "postern.signals")
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = SignalOnce(continuation)
            for number in [SIGTERM, SIGINT] {
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { once.fire() }
                source.resume()
                once.retain(source)
            }
        }
    }
}

/// Resumes a continuation on the first signal only; keeps the signal sources alive meanwhile.
/// Confined to one serial queue (`postern.signals`), hence `@unchecked Sendable`.
private final class SignalOnce: @unchecked Sendable {
    private var continuation: CheckedContinuation<Void, Never>?
    private var sources: [any DispatchSourceSignal] = []

    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }

    func retain(_ source: any DispatchSourceSignal) { sources.append(source) }

    func fire() {
        continuation?.resume()
        continuation = nil
    }
}
