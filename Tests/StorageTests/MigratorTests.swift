import Foundation
import Testing

@testable import Storage

@Suite("Migrator")
struct MigratorTests {
    /// A migrations directory where 0002 depends on 0001 and 0010 on 0002, plus files to ignore.
    private func makeMigrations(in directory: String) throws -> String {
        let migrations = directory + "/migrations"
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
        try writeFile(
            migrations + "/0002_b.sql",
            "CREATE TABLE b(a_id INTEGER NOT NULL REFERENCES a(id)) STRICT;\nINSERT INTO b VALUES (1);")
        try writeFile(
            migrations + "/0001_a.sql", "CREATE TABLE a(id INTEGER PRIMARY KEY) STRICT;\nINSERT INTO a VALUES (1);")
        try writeFile(migrations + "/0010_c.sql", "ALTER TABLE b ADD COLUMN note TEXT;")
        try writeFile(migrations + "/README.md", "not a migration")
        try writeFile(migrations + "/0003_skip.sql.orig", "this is not SQL")
        try writeFile(migrations + "/notes_0004.sql", "this is not SQL either")
        return migrations
    }

    @Test("applies pending migrations in numeric order, records them, and ignores other file names")
    func appliesInOrder() throws {
        try withTemporaryDirectory { directory in
            let migrations = try makeMigrations(in: directory)
            let database = try openDatabase(directory)
            let applied = try Migrator(directory: migrations, now: { 1_700_000_000 }).migrate(database)
            #expect(applied == ["0001_a.sql", "0002_b.sql", "0010_c.sql"])
            let rows = try database.readSync {
                try $0.query("SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version")
            }
            #expect(rows.compactMap { $0.int("version") } == [1, 2, 10])
            #expect(rows.compactMap { $0.text("name") } == applied)
            #expect(rows.allSatisfy { $0.int("applied_at") == 1_700_000_000 })
            let expected = MigrationChecksum.sha256Hex(
                Array("CREATE TABLE a(id INTEGER PRIMARY KEY) STRICT;\nINSERT INTO a VALUES (1);".utf8))
            #expect(rows.first?.text("checksum") == expected)
            #expect(try database.readSync { try $0.query("SELECT note FROM b").count } == 1)
        }
    }

    @Test("a second run applies nothing and does not re-run applied files")
    func appliesOnce() throws {
        try withTemporaryDirectory { directory in
            let migrations = try makeMigrations(in: directory)
            let database = try openDatabase(directory)
            try Migrator(directory: migrations).migrate(database)
            #expect(try Migrator(directory: migrations).migrate(database) == [])
            #expect(try count(database, "a") == 1)

            // After a restart, only a new file is applied.
            try writeFile(migrations + "/0011_d.sql", "INSERT INTO a VALUES (2);")
            let reopened = try openDatabase(directory)
            #expect(try Migrator(directory: migrations).migrate(reopened) == ["0011_d.sql"])
            #expect(try count(reopened, "a") == 2)
        }
    }

    @Test("an edited applied migration is refused by name, and nothing newer is applied")
    func checksumChange() throws {
        try withTemporaryDirectory { directory in
            let migrations = try makeMigrations(in: directory)
            let database = try openDatabase(directory)
            try Migrator(directory: migrations).migrate(database)
            try writeFile(
                migrations + "/0001_a.sql", "CREATE TABLE a(id INTEGER PRIMARY KEY) STRICT;\nINSERT INTO a VALUES (7);")
            try writeFile(migrations + "/0011_d.sql", "CREATE TABLE d(x INTEGER) STRICT;")
            let error = #expect(throws: StorageError.self) { try Migrator(directory: migrations).migrate(database) }
            #expect(error?.code == .migrationChanged)
            #expect(error?.message.contains("0001_a.sql") == true)
            #expect(try database.readSync { try $0.query("SELECT name FROM sqlite_schema WHERE name = 'd'") }.isEmpty)
        }
    }

    @Test("a renamed or missing applied migration is refused by name")
    func missingFile() throws {
        try withTemporaryDirectory { directory in
            let migrations = try makeMigrations(in: directory)
            let database = try openDatabase(directory)
            try Migrator(directory: migrations).migrate(database)
            try FileManager.default.moveItem(
                atPath: migrations + "/0002_b.sql", toPath: migrations + "/0002_renamed.sql")
            let renamed = #expect(throws: StorageError.self) { try Migrator(directory: migrations).migrate(database) }
            #expect(renamed?.code == .migrationChanged)
            #expect(renamed?.message.contains("0002_b.sql") == true)

            try FileManager.default.removeItem(atPath: migrations + "/0002_renamed.sql")
            let missing = #expect(throws: StorageError.self) { try Migrator(directory: migrations).migrate(database) }
            #expect(missing?.code == .migrationChanged)
            #expect(missing?.message.contains("0002_b.sql") == true)
        }
    }

    @Test("a failing migration is rolled back whole, named in the error, and stops later ones")
    func failingMigration() throws {
        try withTemporaryDirectory { directory in
            let migrations = try makeMigrations(in: directory)
            try writeFile(
                migrations + "/0020_broken.sql", "CREATE TABLE half(x INTEGER) STRICT;\nINSERT INTO nowhere VALUES (1);"
            )
            try writeFile(migrations + "/0021_after.sql", "CREATE TABLE after(x INTEGER) STRICT;")
            let database = try openDatabase(directory)
            let error = #expect(throws: StorageError.self) { try Migrator(directory: migrations).migrate(database) }
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

    @Test("two files with one version, a new file older than applied ones, and a missing directory are refused")
    func invalidDirectories() throws {
        try withTemporaryDirectory { directory in
            let migrations = try makeMigrations(in: directory)
            let database = try openDatabase(directory)
            try writeFile(migrations + "/0002_again.sql", "SELECT 1;")
            let duplicate = #expect(throws: StorageError.self) { try Migrator(directory: migrations).migrate(database) }
            #expect(duplicate?.code == .migrationInvalid)
            #expect(try database.readSync { try $0.query("SELECT name FROM sqlite_schema WHERE name = 'a'") }.isEmpty)

            try FileManager.default.removeItem(atPath: migrations + "/0002_again.sql")
            try Migrator(directory: migrations).migrate(database)
            try writeFile(migrations + "/0005_late.sql", "SELECT 1;")
            let stale = #expect(throws: StorageError.self) { try Migrator(directory: migrations).migrate(database) }
            #expect(stale?.code == .migrationInvalid)
            #expect(stale?.message.contains("0005_late.sql") == true)

            let missing = #expect(throws: StorageError.self) {
                try Migrator(directory: directory + "/nope").migrate(database)
            }
            #expect(missing?.code == .notFound)
        }
    }

    @Test("file names: digits, underscore, a name, .sql")
    func fileNames() {
        #expect(Migrator.version(ofFileNamed: "0001_core.sql") == 1)
        #expect(Migrator.version(ofFileNamed: "0042_agent-keys.sql") == 42)
        #expect(Migrator.version(ofFileNamed: "0001_.sql") == nil)
        #expect(Migrator.version(ofFileNamed: "_core.sql") == nil)
        #expect(Migrator.version(ofFileNamed: "0001_core.sql.bak") == nil)
        #expect(Migrator.version(ofFileNamed: "0001_co re.sql") == nil)
        #expect(Migrator.version(ofFileNamed: "core.sql") == nil)
        #expect(Migrator.version(ofFileNamed: "٠١_core.sql") == nil)
    }

    @Test("the repository's migrations apply, creating STRICT challenge and readiness tables")
    func repositoryMigrationsApply() throws {
        try withTemporaryDirectory { directory in
            let database = try openDatabase(directory)
            let applied = try Migrator(directory: repositoryMigrations).migrate(database)
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
