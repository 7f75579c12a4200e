import EmbeddedResources
import Foundation
import Testing

@testable import Storage

@Suite("Migrator")
struct MigratorTests {
    private static let a = "CREATE TABLE a(id INTEGER PRIMARY KEY) STRICT;\nINSERT INTO a VALUES (1);"

    /// 0002 depends on 0001 and 0010 on 0002; listed out of order, as a build may list them.
    private let migrations = [
        Migration(
            version: 2, name: "0002_b.sql",
            sql: "CREATE TABLE b(a_id INTEGER NOT NULL REFERENCES a(id)) STRICT;\nINSERT INTO b VALUES (1);"),
        Migration(version: 1, name: "0001_a.sql", sql: a),
        Migration(version: 10, name: "0010_c.sql", sql: "ALTER TABLE b ADD COLUMN note TEXT;"),
    ]

    /// `migrations` with the one named `name` replaced by `replacement`, or left out when it is nil.
    private func replacing(_ name: String, with replacement: Migration?) -> [Migration] {
        migrations.compactMap { $0.name == name ? replacement : $0 }
    }

    @Test("applies pending migrations in numeric order and records them with their checksums")
    func appliesInOrder() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            let applied = try Migrator(migrations: migrations, now: { 1_700_000_000 }).migrate(database)
            #expect(applied == ["0001_a.sql", "0002_b.sql", "0010_c.sql"])
            let rows = try database.readSync {
                try $0.query("SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version")
            }
            #expect(rows.compactMap { $0.int("version") } == [1, 2, 10])
            #expect(rows.compactMap { $0.text("name") } == applied)
            #expect(rows.allSatisfy { $0.int("applied_at") == 1_700_000_000 })
            #expect(rows.first?.text("checksum") == MigrationChecksum.sha256Hex(Array(Self.a.utf8)))
            #expect(try database.readSync { try $0.query("SELECT note FROM b").count } == 1)
        }
    }

    @Test("a second run applies nothing and does not re-run applied migrations")
    func appliesOnce() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            try Migrator(migrations: migrations).migrate(database)
            #expect(try Migrator(migrations: migrations).migrate(database) == [])
            #expect(try count(database, "a") == 1)

            // After a restart, only a new migration is applied.
            let reopened = try openDatabase(directory)
            let newer = migrations + [Migration(version: 11, name: "0011_d.sql", sql: "INSERT INTO a VALUES (2);")]
            #expect(try Migrator(migrations: newer).migrate(reopened) == ["0011_d.sql"])
            #expect(try count(reopened, "a") == 2)
        }
    }

    @Test("an edited applied migration is refused by name, and nothing newer is applied")
    func checksumChange() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            try Migrator(migrations: migrations).migrate(database)
            let edited = replacing(
                "0001_a.sql",
                with: Migration(
                    version: 1, name: "0001_a.sql",
                    sql: "CREATE TABLE a(id INTEGER PRIMARY KEY) STRICT;\nINSERT INTO a VALUES (7);"))
                + [Migration(version: 11, name: "0011_d.sql", sql: "CREATE TABLE d(x INTEGER) STRICT;")]
            let error = #expect(throws: StorageError.self) { try Migrator(migrations: edited).migrate(database) }
            #expect(error?.code == .migrationChanged)
            #expect(error?.message.contains("0001_a.sql") == true)
            #expect(try database.readSync { try $0.query("SELECT name FROM sqlite_schema WHERE name = 'd'") }.isEmpty)
        }
    }

    @Test("a renamed or missing applied migration is refused by name")
    func missingMigration() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            try Migrator(migrations: migrations).migrate(database)
            let b = try #require(migrations.first { $0.name == "0002_b.sql" })
            let renamed = replacing("0002_b.sql", with: Migration(version: 2, name: "0002_renamed.sql", sql: b.sql))
            let renamedError = #expect(throws: StorageError.self) {
                try Migrator(migrations: renamed).migrate(database)
            }
            #expect(renamedError?.code == .migrationChanged)
            #expect(renamedError?.message.contains("0002_b.sql") == true)

            let missing = #expect(throws: StorageError.self) {
                try Migrator(migrations: replacing("0002_b.sql", with: nil)).migrate(database)
            }
            #expect(missing?.code == .migrationChanged)
            #expect(missing?.message.contains("0002_b.sql") == true)
        }
    }

    @Test("a failing migration is rolled back whole, named in the error, and stops later ones")
    func failingMigration() throws {
        try withTemporaryDirectory { directory in
            let broken = migrations + [
                Migration(
                    version: 20, name: "0020_broken.sql",
                    sql: "CREATE TABLE half(x INTEGER) STRICT;\nINSERT INTO nowhere VALUES (1);"),
                Migration(version: 21, name: "0021_after.sql", sql: "CREATE TABLE after(x INTEGER) STRICT;"),
            ]
            let database = try openDatabase(directory)
            let error = #expect(throws: StorageError.self) { try Migrator(migrations: broken).migrate(database) }
            #expect(error?.code == .sqlite)
            #expect(error?.message.hasPrefix("0020_broken.sql") == true)
            let tables = try database.readSync { try $0.query("SELECT name FROM sqlite_schema WHERE type = 'table'") }
                .compactMap { $0.text("name") }
            #expect(tables.contains("b"))
            #expect(!tables.contains("half"))
            #expect(!tables.contains("after"))
            #expect(
                try database.readSync { try $0.query("SELECT max(version) AS v FROM schema_migrations") }.first?.int(
                    "v") == 10)
        }
    }

    @Test("two migrations with one version, and a new one older than applied ones, are refused")
    func invalidLists() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            let twice = migrations + [Migration(version: 2, name: "0002_again.sql", sql: "SELECT 1;")]
            let duplicate = #expect(throws: StorageError.self) { try Migrator(migrations: twice).migrate(database) }
            #expect(duplicate?.code == .migrationInvalid)
            #expect(duplicate?.message.contains("0002_again.sql") == true)
            #expect(try database.readSync { try $0.query("SELECT name FROM sqlite_schema WHERE name = 'a'") }.isEmpty)

            try Migrator(migrations: migrations).migrate(database)
            let late = migrations + [Migration(version: 5, name: "0005_late.sql", sql: "SELECT 1;")]
            let stale = #expect(throws: StorageError.self) { try Migrator(migrations: late).migrate(database) }
            #expect(stale?.code == .migrationInvalid)
            #expect(stale?.message.contains("0005_late.sql") == true)
        }
    }

    @Test("a migration from a file takes its version from the name; other names are not migrations")
    func fromFileName() throws {
        let migration = try #require(Migration(fileNamed: "0042_agent-keys.sql", sql: "SELECT 1;"))
        #expect(migration.version == 42)
        #expect(migration.name == "0042_agent-keys.sql")
        #expect(migration.checksum == MigrationChecksum.sha256Hex(Array("SELECT 1;".utf8)))
        for name in ["README.md", "0003_skip.sql.orig", "notes_0004.sql"] {
            #expect(Migration(fileNamed: name, sql: "SELECT 1;") == nil, "\(name)")
        }
    }

    @Test("file names: digits, underscore, a name, .sql")
    func fileNames() {
        #expect(Migration.version(ofFileNamed: "0001_core.sql") == 1)
        #expect(Migration.version(ofFileNamed: "0042_agent-keys.sql") == 42)
        #expect(Migration.version(ofFileNamed: "0001_.sql") == nil)
        #expect(Migration.version(ofFileNamed: "_core.sql") == nil)
        #expect(Migration.version(ofFileNamed: "0001_core.sql.bak") == nil)
        #expect(Migration.version(ofFileNamed: "0001_co re.sql") == nil)
        #expect(Migration.version(ofFileNamed: "core.sql") == nil)
        #expect(Migration.version(ofFileNamed: "٠١_core.sql") == nil)
    }

    @Test("the shipped migrations apply, creating STRICT challenge and readiness tables")
    func shippedMigrationsApply() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            let applied = try Migrator(migrations: EmbeddedResources.migrations).migrate(database)
            #expect(applied.first == "0001_core.sql")
            let strict = try database.readSync { connection in
                try connection.query(
                    """
                    SELECT name, strict FROM pragma_table_list
                    WHERE name IN ('challenges', 'readiness_probe') ORDER BY name
                    """)
            }
            let names = strict.compactMap { $0.text("name") }
            #expect(names == ["challenges", "readiness_probe"])
            #expect(strict.allSatisfy { $0.int("strict") == 1 })
            let indexes = try database.readSync { try $0.query("SELECT name FROM pragma_index_list('challenges')") }
                .compactMap { $0.text("name") }
            #expect(indexes.contains("challenges_expires_at"))
            let wrongID = #expect(throws: StorageError.self) { try insertSecondProbeRow(database) }
            #expect(wrongID?.code == .constraint)
        }
    }

    private func insertSecondProbeRow(_ database: Database) throws {
        try database.writeSync { connection in
            _ = try connection.run("INSERT INTO readiness_probe(id, checked_at) VALUES (2, 0)")
        }
    }

    @Test("the checksum is SHA-256 (FIPS 180 vectors)")
    func sha256Vectors() {
        #expect(MigrationChecksum.sha256Hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            MigrationChecksum.sha256Hex(Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            MigrationChecksum.sha256Hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            MigrationChecksum.sha256Hex(Array(repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
