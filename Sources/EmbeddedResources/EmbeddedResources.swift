import Storage

/// The files a running Postern needs, compiled into the binary at build time by the `EmbedResources`
/// plugin, so that `postern` runs from any directory with nothing beside it.
///
/// The files in the repository stay the source: `migrations/sqlite/*.sql` and `migrations/postgres/*.sql` at
/// the package root, `config/postern.env`, and `Sources/EmbeddedResources/openapi.json`, `web-inbox-live.js` (the
/// web inbox's script) and `passkeys.js` (the passkey forms'). A test compares every embedded file with its source byte
/// for byte, and the two migration sets with each other (the same numbers and names).
public enum EmbeddedResources {
    /// Every `migrations/sqlite/*.sql` file as built, by file name, whatever its name.
    public static let migrationFiles: [EmbeddedFile] = EmbeddedFiles.migrations

    /// Every `migrations/postgres/*.sql` file as built, by file name.
    public static let postgresMigrationFiles: [EmbeddedFile] = EmbeddedFiles.postgresMigrations

    /// The SQLite schema migrations this build applies: the files among ``migrationFiles`` named
    /// `<digits>_<name>.sql` (others are skipped, as they always were).
    public static let migrations: [Migration] = migrationFiles.compactMap {
        Migration(fileNamed: $0.name, sql: $0.text)
    }

    /// The migrations of `dialect`: SQLite's ``migrations`` or PostgreSQL's, with the same numbers and names.
    public static func migrations(for dialect: SQLDialect) -> [Migration] {
        switch dialect {
        case .sqlite: return migrations
        case .postgres: return postgresMigrations
        }
    }

    private static let postgresMigrations: [Migration] = postgresMigrationFiles.compactMap {
        Migration(fileNamed: $0.name, sql: $0.text)
    }

    /// The OpenAPI 3.1 document (`openapi.json`) as written in the repository.
    public static let openAPIDocument: EmbeddedFile = EmbeddedFiles.openapiJSON

    /// `config/postern.env` as written in the repository: every configuration key with its default and comment.
    public static let configurationFile: EmbeddedFile = EmbeddedFiles.posternENV

    /// The web inbox's live-list script (`web-inbox-live.js`), served at `/inbox/assets/live.js`.
    public static let webInboxScript: EmbeddedFile = EmbeddedFiles.webInboxLiveJS

    /// The passkey forms' script (`passkeys.js`), served at `/owner/assets/passkeys.js`.
    public static let passkeysScript: EmbeddedFile = EmbeddedFiles.passkeysJS
}

/// One file compiled into the binary.
public struct EmbeddedFile: Sendable {
    /// The file's name, without its directory.
    public let name: String
    /// The file's content (embedded files are UTF-8).
    public let text: String

    /// The file's bytes, exactly as in the repository.
    public var bytes: [UInt8] { Array(text.utf8) }
}
