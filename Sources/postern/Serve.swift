import ArgumentParser
import Dispatch
import Foundation
import PosternApp

/// `postern serve`: applies pending migrations, serves until SIGTERM or SIGINT, then drains and exits 0.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the three auth APIs (applies pending migrations first).")

    @OptionGroup var options: ConfigurationOptions
    @OptionGroup var listen: ListenOptions

    func run() async throws {
        let configuration = try await options.load(listen.overrides)
        let logger = bootstrapLogging(level: configuration.logLevel)
        // Before anything can tell the world we are up: a signal that arrives from then on is a request to
        // drain, never the default action that would kill requests in flight.
        let termination = TerminationSignal()
        let runtime = try await PosternRuntime.build(configuration: configuration, logger: logger)
        _ = try runtime.start()
        // Scripts and test suites read this line to learn the port when POSTERN_PORT=0.
        // Written unbuffered so that a pipe sees it at once.
        FileHandle.standardOutput.write(Data("postern listening on http://\(runtime.listenAddress)\n".utf8))
        if let smtp = runtime.smtpListenAddress {
            FileHandle.standardOutput.write(Data("postern SMTP listening on smtp://\(smtp)\n".utf8))
        }
        logger.notice(
            "serving", metadata: ["public_url": "\(runtime.identity.baseURL)", "issuer": "\(runtime.identity.issuer)"])
        await termination.wait()
        logger.notice("shutting down: finishing requests in flight")
        // Joins the event-loop, pool and fetch threads and closes the database, so that nothing of ours
        // runs while the process exits.
        await runtime.shutdown()
        logger.notice("stopped")
    }
}

/// SIGTERM and SIGINT turned into one awaitable event. Created early, so a signal that arrives before
/// `wait()` is remembered rather than lost or fatal.
/// All state is confined to the serial queue `postern.signals`, hence `@unchecked Sendable`.
private final class TerminationSignal: @unchecked Sendable {
    private let queue = DispatchQueue(label: "postern.signals")
    private var sources: [any DispatchSourceSignal] = []
    private var arrived = false
    private var waiter: CheckedContinuation<Void, Never>?

    init() {
        for number in [SIGTERM, SIGINT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in fire() }
            source.resume()
            sources.append(source)
        }
    }

    /// Returns once SIGTERM or SIGINT has arrived (at once if one already has).
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                if arrived { continuation.resume() } else { waiter = continuation }
            }
        }
    }

    private func fire() {
        arrived = true
        waiter?.resume()
        waiter = nil
    }
}
