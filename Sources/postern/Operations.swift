import ArgumentParser
import Foundation
import PosternApp
import PosternOperations

/// `postern migrate`: applies pending migrations and exits.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending database migrations and exit.")
    @OptionGroup var options: DataOptions

    func run() async throws {
        let (configuration, logger) = try await options.loadWithLogger(.creates)
        let applied = try Operations.migrate(configuration: configuration, logger: logger)
        Terminal.write(applied.isEmpty ? "no pending migrations" : "applied: \(applied.joined(separator: ", "))")
    }
}

/// `postern keys list|rotate|retire`.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, rotate or retire the token signing keys.", subcommands: [List.self, Rotate.self, Retire.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List signing keys, active and retired.")
        @OptionGroup var options: DataOptions

        func run() async throws {
            try await options.printLines { try Operations.listKeys(configuration: $0, logger: $1) }
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
        @OptionGroup var options: DataOptions

        func run() async throws {
            try await options.printLines { try Operations.rotateKeys(configuration: $0, logger: $1) }
        }
    }

    struct Retire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Retire a compromised signing key now: every token it signed is refused.",
            discussion: """
                The key leaves the key set and the JWKS at once instead of verifying until its tokens expire; when it \
                was the active key of its kind a new one is made and signs at once. In a PostgreSQL database every \
                instance drops it at once. In the data directory (SQLite) a running server drops it at its next key \
                reload, within POSTERN_KEY_RELOAD_SECONDS (30); restart it to drop it now. The JWT_PRIVATE_KEY key \
                cannot be retired here: replace or unset the variable. For a planned change use `keys rotate`.
                """)
        @OptionGroup var options: DataOptions
        // Unconditional: a kid is base64url and may begin with "-" (`--kid -XVRg...`), which would otherwise read as
        // an option and fail with "Missing value".
        @Option(parsing: .unconditional, help: "The key id (`postern keys list`).")
        var kid: String
        @Flag(help: "Drop the key now (required: a planned retirement is `keys rotate`).")
        var now = false

        func validate() throws {
            guard now else {
                throw ValidationError("retire drops a key at once: pass --now (or use `keys rotate` to retire gently)")
            }
        }

        func run() async throws {
            let (configuration, logger) = try await options.loadWithLogger()
            for line in try Operations.retireKeyNow(configuration: configuration, kid: kid, logger: logger) {
                Terminal.write(line)
            }
        }
    }
}

/// `postern backup --to FILE`.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the database, signing keys and SMTP TLS pair to one archive (consistent while serving).",
        discussion: """
            The archive is a tar file (mode 0600) with a manifest.json: restore it with `postern restore`. It holds \
            the signing keys, so treat it as a secret. On PostgreSQL use pg_dump instead and keep POSTERN_KEY_SECRET \
            with the dump (docs/postgres.md).
            """)
    @OptionGroup var options: DataOptions
    @Option(help: "Destination file; must not exist.") var to: String

    func run() async throws {
        let (configuration, logger) = try await options.loadWithLogger()
        try Operations.backup(configuration: configuration, to: to, logger: logger)
        Terminal.write("backup written to \(to)")
    }
}

/// `postern restore --from FILE --data-dir D`.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore a `postern backup` archive into a new data directory.",
        discussion: """
            Every file is checked against the archive's manifest and the database's integrity is checked before \
            anything appears in the data directory, which must not exist or be empty. An archive written by a newer \
            schema than this build knows is refused. Start the server on the directory afterwards: tokens and API keys \
            given out before the backup keep working.
            """)
    @Option(help: "The archive written by `postern backup`.") var from: String
    @Option(name: .customLong("data-dir"), help: "The data directory to create; must not exist or be empty.")
    var dataDirectory: String

    func run() async throws {
        let logger = bootstrapLogging(level: "info")
        let schema = try Operations.restore(from: from, dataDirectory: dataDirectory, logger: logger)
        Terminal.write("restored schema \(schema) into \(dataDirectory)")
    }
}
