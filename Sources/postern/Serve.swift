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
        let logger = bootstrapLogging(level: configuration.logLevel)
        defer {
            if configuration.removeDataDirectoryAtExit {
                try? FileManager.default.removeItem(atPath: configuration.dataDirectory)
            }
        }
        // Before anything can tell the world we are up: a signal that arrives from then on is a request to
        // drain, never the default action that would kill requests in flight.
        // SIGUSR1 writes the access-log lines gathered so far (they wait at most a quarter second anyway).
        let built = Mutex<PosternRuntime?>(nil)
        let termination = TerminationSignals.shared
        termination.arm(onUserSignal: { built.withLock { $0 }?.flushAccessLog() })
        let runtime = try await PosternRuntime.build(configuration: configuration, logger: logger)
        built.withLock { $0 = runtime }
        _ = try runtime.start()
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
        if let metrics = runtime.metricsListenAddress {
            FileHandle.standardOutput.write(Data("postern metrics listening on http://\(metrics)/metrics\n".utf8))
        }
        // One JSON line with everything bound, for fixtures that start `serve` with free ports; the file first, so
        // that a reader who saw the line finds the file.
        let bound = runtime.boundAddressesLine
        if let portsFile { try PortsFile.write(bound, to: portsFile) }
        FileHandle.standardOutput.write(Data(bound))
        logger.notice(
            "serving", metadata: ["public_url": "\(runtime.identity.baseURL)", "issuer": "\(runtime.identity.issuer)"])
        await termination.wait()
        if configuration.drainSeconds > 0 {
            // A balancer checking /readyz takes the instance out before any connection is closed under it.
            runtime.beginDraining()
            logger.notice("draining: /readyz fails for \(configuration.drainSeconds) s, then shutting down")
            try? await Task.sleep(for: .seconds(configuration.drainSeconds))
        }
        logger.notice("shutting down: finishing requests in flight")
        // Joins the event-loop, pool and fetch threads and closes the database, so that nothing of ours
        // runs while the process exits.
        await runtime.shutdown()
        logger.notice("stopped")
    }
}

/// `serve --ports-file`: the JSON line of what was bound, written whole (a reader never sees half of it).
enum PortsFile {
    static func write(_ bytes: [UInt8], to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)),
            rename(temporary, path) == 0
        else {
            unlink(temporary)
            throw ValidationError("cannot write the ports file \(path): \(String(cString: strerror(errno)))")
        }
    }
}
