import ArgumentParser
import Foundation
import PosternApp
import Synchronization

/// `postern serve`: applies pending migrations, serves until SIGTERM or SIGINT, then drains and exits 0.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve every surface on one port, and SMTP (applies pending migrations first).",
        discussion: ConfigurationKey.helpText())

    @OptionGroup var options: ConfigurationOptions
    @OptionGroup var listen: ListenOptions
    @Option(
        help: """
            Defaults for one kind of use (POSTERN_PROFILE): default, or test (free ports, no rate limits or proofs \
            of work, no sandbox DNS lookups, quiet logs, a temporary data directory removed at exit). Explicit \
            settings still win.
            """)
    var profile: String?
    @Option(
        name: .customLong("ports-file"),
        help: "Also write the JSON line of what was bound (http, smtp, sandbox, data_dir) to this file.")
    var portsFile: String?

    func run() async throws {
        var overrides = listen.overrides
        if let profile { overrides["POSTERN_PROFILE"] = profile }
        let configuration = try await options.load(overrides)
        let logger = bootstrapLogging(level: configuration.observability.logLevel)
        defer {
            if configuration.storage.removeDataDirectoryAtExit {
                try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory)
            }
        }
        // Before anything can tell the world we are up: a signal that arrives from then on is a request to
        // drain, never the default action that would kill requests in flight. The signals are blocked in every thread
        // and taken by the main thread (TerminationSignals), which asks the runtime's service group to shut down in
        // order, as the group's own signal handling would.
        // SIGUSR1 writes the access-log lines gathered so far (they wait at most a quarter second anyway).
        let built = Mutex<PosternRuntime?>(nil)
        let termination = TerminationSignals.shared
        termination.arm(onUserSignal: { built.withLock { $0 }?.flushAccessLog() })
        let runtime = try await PosternRuntime.build(configuration: configuration, logger: logger)
        built.withLock { $0 = runtime }
        // The sockets are bound: a connection made from now on waits in the backlog until its listener serves it.
        let running = Task { try await runtime.run() }
        // Scripts and test suites read this line to learn the port when POSTERN_PORT=0.
        // Written unbuffered so that a pipe sees it at once.
        let loops = runtime.eventLoopCount == 1 ? "1 event loop" : "\(runtime.eventLoopCount) event loops"
        FileHandle.standardOutput.write(Data("postern listening on http://\(runtime.listenAddress) (\(loops))\n".utf8))
        if let smtp = runtime.smtpListenAddress {
            FileHandle.standardOutput.write(Data("postern SMTP listening on smtp://\(smtp)\n".utf8))
        }
        if let sandbox = runtime.sandboxListenAddress {
            FileHandle.standardOutput.write(Data("postern SMTP sandbox listening on smtp://\(sandbox)\n".utf8))
        }
        let mailListeners = [
            ("IMAP", "imap", runtime.imapListenAddress), ("IMAPS", "imaps", runtime.imapsListenAddress),
            ("POP3", "pop3", runtime.pop3ListenAddress), ("POP3S", "pop3s", runtime.pop3sListenAddress),
            ("submission", "smtp", runtime.submissionListenAddress),
            ("submissions", "smtps", runtime.submissionsListenAddress),
        ]
        for case (let name, let scheme, let address?) in mailListeners {
            FileHandle.standardOutput.write(Data("postern \(name) listening on \(scheme)://\(address)\n".utf8))
        }
        if let metrics = runtime.metricsListenAddress {
            FileHandle.standardOutput.write(Data("postern metrics listening on http://\(metrics)/metrics\n".utf8))
        }
        // One JSON line with everything bound, for fixtures that start `serve` with free ports; the file first, so
        // that a reader who saw the line finds the file.
        let bound = runtime.boundAddressesLine
        if let portsFile {
            do {
                try RunningServerRecord.writeWhole(bound, to: portsFile)
            } catch {
                await runtime.triggerGracefulShutdown()
                try? await running.value
                throw CommandFailure("cannot write the ports file: \(error)")
            }
        }
        // The data directory (when there is one: on PostgreSQL it may be unused) keeps the same line while the server
        // runs (RunningServerRecord), so that `postern web link` on it prints this server's URL. Without it the
        // command falls back to the configuration: a warning, not a reason to stop.
        let directory = runtime.absoluteDataDirectory
        if FileManager.default.fileExists(atPath: directory) {
            do {
                try RunningServerRecord.write(bound, dataDirectory: directory)
            } catch {
                logger.warning("no running-server record", metadata: ["error": "\(error)"])
            }
        }
        defer { RunningServerRecord.remove(dataDirectory: directory) }
        FileHandle.standardOutput.write(Data(bound))
        logger.notice(
            "serving", metadata: ["public_url": "\(runtime.identity.baseURL)", "issuer": "\(runtime.identity.issuer)"])
        let signalled = Task {
            await termination.wait()
            // Drains /readyz for POSTERN_DRAIN_SECONDS, finishes requests in flight, then stops the rest in order.
            await runtime.triggerGracefulShutdown()
        }
        defer { signalled.cancel() }
        // Returns once every service has stopped: the loops, pool, fetch and DNS threads are joined and the database
        // is closed, so that nothing of ours runs while the process exits.
        try await running.value
        logger.notice("stopped")
    }
}
