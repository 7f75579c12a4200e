import ArgumentParser
import Foundation
import PosternApp

/// `postern migrate`: applies pending migrations and exits.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending database migrations and exit.")
    @OptionGroup var options: ConfigurationOptions

    func run() async throws {
        let configuration = try await options.load()
        let logger = bootstrapLogging(level: configuration.logLevel)
        let applied = try Operations.migrate(configuration: configuration, logger: logger)
        print(applied.isEmpty ? "no pending migrations" : "applied: \(applied.joined(separator: ", "))")
    }
}

/// `postern keys list|rotate`.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List or rotate the token signing keys.", subcommands: [List.self, Rotate.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List signing keys, active and retired.")
        @OptionGroup var options: ConfigurationOptions

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.logLevel)
            for line in try Operations.listKeys(configuration: configuration, logger: logger) { print(line) }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add new signing keys; older keys keep verifying until their tokens expire.",
            discussion: """
                In the data directory (SQLite) the new keys sign at once and a running server picks them up within \
                POSTERN_KEY_RELOAD_SECONDS (30). In a PostgreSQL database every instance hears of them at once; they \
                are published at once and sign after POSTERN_KEY_PROMOTION_SECONDS (the reload interval plus the \
                JWKS cache time and the 30 s leeway, 360 s by default).
                """)
        @OptionGroup var options: ConfigurationOptions

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.logLevel)
            for line in try Operations.rotateKeys(configuration: configuration, logger: logger) { print(line) }
        }
    }
}

/// `postern backup --to FILE`.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the database with SQLite's online backup (consistent while serving).")
    @OptionGroup var options: ConfigurationOptions
    @Option(help: "Destination file; must not exist.") var to: String

    func run() async throws {
        let configuration = try await options.load()
        let logger = bootstrapLogging(level: configuration.logLevel)
        try Operations.backup(configuration: configuration, to: to, logger: logger)
        print("backup written to \(to)")
    }
}
