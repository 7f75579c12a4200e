import Foundation
import Testing

import EmbeddedResources
@testable import Storage

/// The files compiled into the binary are the files in the repository, so they can never drift apart.
@Suite("Embedded resources")
struct EmbeddedResourcesTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `.sql` files of `migrations/<dialect>/`, by name, with their bytes.
    private func repositoryMigrationFiles(_ dialect: SQLDialect = .sqlite) throws -> [(name: String, bytes: [UInt8])] {
        let directory = Self.repository.appendingPathComponent("migrations").appendingPathComponent(dialect.rawValue)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".sql") }
            .sorted()
            .map { name in (name, [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))) }
    }

    @Test("the embedded migrations are the files in migrations/sqlite and migrations/postgres, names and bytes")
    func migrationsMatchFiles() throws {
        for (dialect, embeddedFiles) in [
            (SQLDialect.sqlite, EmbeddedResources.migrationFiles), (.postgres, EmbeddedResources.postgresMigrationFiles),
        ] {
            let files = try repositoryMigrationFiles(dialect)
            #expect(!files.isEmpty)
            #expect(embeddedFiles.map(\.name) == files.map(\.name))
            for (embedded, file) in zip(embeddedFiles, files) {
                #expect(embedded.bytes == file.bytes, "\(dialect) \(file.name) differs from its embedded copy")
            }
        }
    }

    @Test("SQLite and PostgreSQL have the same migrations: the same numbers under the same names")
    func dialectsMatch() {
        let sqlite = EmbeddedResources.migrations(for: .sqlite)
        let postgres = EmbeddedResources.migrations(for: .postgres)
        #expect(!sqlite.isEmpty)
        #expect(sqlite.map(\.version) == postgres.map(\.version))
        #expect(sqlite.map(\.name) == postgres.map(\.name))
    }

    @Test("every migration file is a migration, and its checksum is the SHA-256 of the file")
    func migrationsParse() throws {
        let files = try repositoryMigrationFiles()
        #expect(EmbeddedResources.migrations.map(\.name) == files.map(\.name))
        for (migration, file) in zip(EmbeddedResources.migrations, files) {
            #expect(migration.checksum == MigrationChecksum.sha256Hex(file.bytes))
        }
    }

    @Test("the embedded OpenAPI document is openapi.json, byte for byte")
    func openAPIMatchesFile() throws {
        let file = Self.repository.appendingPathComponent("Sources/EmbeddedResources/openapi.json")
        #expect(EmbeddedResources.openAPIDocument.name == "openapi.json")
        #expect(EmbeddedResources.openAPIDocument.bytes == [UInt8](try Data(contentsOf: file)))
    }

    @Test("the embedded web inbox script is web-inbox-live.js, byte for byte")
    func webInboxScriptMatchesFile() throws {
        let file = Self.repository.appendingPathComponent("Sources/EmbeddedResources/web-inbox-live.js")
        #expect(EmbeddedResources.webInboxScript.name == "web-inbox-live.js")
        #expect(EmbeddedResources.webInboxScript.bytes == [UInt8](try Data(contentsOf: file)))
    }

    @Test("the embedded passkey script is passkeys.js, byte for byte")
    func passkeysScriptMatchesFile() throws {
        let file = Self.repository.appendingPathComponent("Sources/EmbeddedResources/passkeys.js")
        #expect(EmbeddedResources.passkeysScript.name == "passkeys.js")
        #expect(EmbeddedResources.passkeysScript.bytes == [UInt8](try Data(contentsOf: file)))
    }
}
