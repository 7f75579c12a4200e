import ArgumentParser
import Foundation
import HTTPServer
import Logging
import PosternApp
import PosternOperations

/// `postern`: the server and its operator commands (run by ``Main``).
struct Postern: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postern",
        abstract: PosternIntro.summary,
        discussion: PosternIntro.surfaces,
        version: PosternVersion.text,
        subcommands: [
            Serve.self, Migrate.self, Keys.self, Backup.self, Restore.self, Pro.self, OwnerCommand.self, Agent.self,
            Mail.self, AuditCommand.self, DKIM.self, Web.self, OIDCCommand.self, OAuthCommand.self,
        ],
        defaultSubcommand: nil)
}

/// Flags shared by every command that reads the configuration; they override the file and environment.
struct ConfigurationOptions: ParsableArguments {
    @Option(help: "Configuration file (default: $POSTERN_CONFIG or config/postern.env).")
    var config: String?
    @Option(name: .customLong("data-dir"), help: "Database and keys directory (POSTERN_DATA_DIR).")
    var dataDir: String?

    /// Loads, validates and returns the configuration, or exits with a message naming the bad key.
    /// - Parameter extra: more overrides (the listen flags of `serve`).
    func load(_ extra: [String: String] = [:]) async throws -> PosternConfiguration {
        var overrides = extra
        if let dataDir { overrides["POSTERN_DATA_DIR"] = dataDir }
        do {
            return try await ConfigurationLoader.load(configPath: config, overrides: overrides)
        } catch let error as ConfigurationError {
            throw CommandFailure("configuration: \(error)")
        }
    }

}

/// The flags of a command that works on a server's data: the configuration's, and `--ports-file` to take the data
/// directory from the record a running server wrote. Before it returns the configuration, ``load(_:)`` looks there
/// (``CommandDataDirectory``): a command that reads makes no data directory, and each says which one it read when no
/// server runs there.
struct DataOptions: ParsableArguments {
    @OptionGroup var base: ConfigurationOptions
    @Option(
        name: .customLong("ports-file"),
        help: "The ports file of the running server (`serve --ports-file`): its data directory (and URL).")
    var portsFile: String?

    /// The running server's record named by `--ports-file`, nil without the flag.
    func runningServer() throws -> RunningServerRecord.Contents? {
        guard let portsFile else { return nil }
        guard let bytes = FileManager.default.contents(atPath: portsFile),
            let running = RunningServerRecord.read(Array(bytes))
        else { throw CommandFailure("cannot read the ports file \(portsFile)") }
        return running
    }

    /// ``ConfigurationOptions/load(_:)`` with the data directory of `--ports-file` (an explicit `--data-dir` wins),
    /// after looking there: a missing database is an error for a command that `.reads`, made (and said) for one that
    /// `.creates`; a line on standard error names the directory when no server runs there.
    func load(_ use: CommandDataDirectory.Use = .reads) async throws -> PosternConfiguration {
        var overrides: [String: String] = [:]
        if base.dataDir == nil, let directory = try runningServer()?.dataDirectory {
            overrides["POSTERN_DATA_DIR"] = directory
        }
        let configuration = try await base.load(overrides)
        let finding: CommandDataDirectory.Finding
        do {
            finding = try CommandDataDirectory.find(configuration, use: use)
        } catch let missing as CommandDataDirectory.Missing {
            throw CommandFailure(missing.description)
        }
        if let note = finding.note { FileHandle.standardError.write(Data("postern: \(note)\n".utf8)) }
        return configuration
    }

    /// ``load(_:)``, and the logger an operator command logs through at the configuration's level.
    func loadWithLogger(_ use: CommandDataDirectory.Use = .reads) async throws -> (PosternConfiguration, Logger) {
        let configuration = try await load(use)
        return (configuration, bootstrapLogging(level: configuration.observability.logLevel))
    }

    /// A listing command's run: ``loadWithLogger(_:)``, then the lines `listing` makes, printed.
    func printLines(_ listing: (PosternConfiguration, Logger) async throws -> [String]) async throws {
        let (configuration, logger) = try await loadWithLogger()
        Terminal.write(lines: try await listing(configuration, logger))
    }
}

/// The listen flags, for `serve` only (the operator commands listen on nothing).
struct ListenOptions: ParsableArguments {
    @Option(help: "Listen address (POSTERN_HOST).")
    var host: String?
    @Option(help: "Listen port; 0 picks a free one (POSTERN_PORT).")
    var port: Int?
    @Option(name: .customLong("smtp-port"), help: "SMTP listen port; 0 picks a free one, off none (POSTERN_SMTP_PORT).")
    var smtpPort: String?
    @Option(
        name: .customLong("sandbox-smtp-port"),
        help: "SMTP sandbox listen port; 0 picks a free one, off none (POSTERN_SANDBOX_SMTP_PORT).")
    var sandboxSMTPPort: String?

    /// The flags as configuration overrides.
    var overrides: [String: String] {
        var overrides: [String: String] = [:]
        if let host { overrides["POSTERN_HOST"] = host }
        if let port { overrides["POSTERN_PORT"] = String(port) }
        if let smtpPort { overrides["POSTERN_SMTP_PORT"] = smtpPort }
        if let sandboxSMTPPort { overrides["POSTERN_SANDBOX_SMTP_PORT"] = sandboxSMTPPort }
        return overrides
    }
}

/// Sets up swift-log once: one line per event on standard error at the configured level.
func bootstrapLogging(level: String) -> Logger {
    let parsed = Logger.Level(rawValue: level) ?? .info
    LoggingSystem.bootstrap { label in LineLogHandler(label: label, level: parsed) }
    var logger = Logger(label: "postern")
    logger.logLevel = parsed
    return logger
}

/// The three ways a command takes a password; exactly one must be given. `--password` is kept for scripts, but
/// `ps` and shell history see it: prefer standard input or a file.
struct PasswordOptions: ParsableArguments {
    @Option(help: "The password; `ps` and shell history see it: prefer --password-stdin or --password-file.")
    var password: String?
    @Flag(name: .customLong("password-stdin"), 
        help: "Read the password from standard input (one final newline dropped).")
    var passwordStdin = false
    @Option(name: .customLong("password-file"), help: "Read the password from this file (one final newline dropped).")
    var passwordFile: String?

    func validate() throws {
        do {
            _ = try PasswordSource.choose(password: password, standardInput: passwordStdin, file: passwordFile)
        } catch let failure as PasswordSource.Failure {
            throw ValidationError(failure.description)
        }
    }

    /// The password from the one source given.
    func read() throws -> String {
        do {
            let source = try PasswordSource.choose(password: password, standardInput: passwordStdin, file: passwordFile)
            return try source.read()
        } catch let failure as PasswordSource.Failure {
            throw CommandFailure(failure.description)
        }
    }
}
