import Dispatch
import EmbeddedResources
import PosternTestSupport
import Storage
import Synchronization
import Testing

@testable import PostgresClient

/// The shipped PostgreSQL migrations through the one migrator, on a real server.
@Suite("PostgreSQL migrations", .onPostgres, .serialized)
struct PostgresMigrationTests {
    let url: String
    let migrator = Migrator(migrations: EmbeddedResources.migrations(for: .postgres), now: { 1_700_000_000 })

    init() throws {
        url = try PostgresTestServer.shared().freshDatabase()
    }

    @Test("every shipped migration applies once; a second run applies nothing")
    func appliesOnce() throws {
        let connection = try PostgresConnection(url: url)
        let applied = try migrator.migrate(on: connection)
        #expect(applied == EmbeddedResources.migrations(for: .postgres).map(\.name))
        #expect(try migrator.migrate(on: connection).isEmpty)
        let recorded = try connection.query("SELECT name, checksum FROM schema_migrations ORDER BY version")
        #expect(recorded.map { $0.text("name") } == applied)
        #expect(recorded.map { $0.text("checksum") } == EmbeddedResources.migrations(for: .postgres).map(\.checksum))
    }

    @Test("an applied migration that changed is refused, naming it")
    func changedRefused() throws {
        let connection = try PostgresConnection(url: url)
        try migrator.migrate(on: connection)
        var edited = EmbeddedResources.migrations(for: .postgres)
        let first = edited[0]
        edited[0] = Migration(version: first.version, name: first.name, sql: first.sql + "\n-- edited\n")
        do {
            try Migrator(migrations: edited).migrate(on: connection)
            Issue.record("an edited migration was accepted")
        } catch let error as StorageError {
            #expect(error.code == .migrationChanged)
            #expect(error.message.contains(first.name))
        }
    }

    @Test("four instances migrating one empty database at once: one applies everything, the others nothing")
    func concurrentStart() throws {
        let url = url
        let migrator = migrator
        let results = Mutex<[Result<[String], any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let result = Result { try migrator.migrate(on: try PostgresConnection(url: url)) }
            results.withLock { $0.append(result) }
        }
        let applied = try results.withLock { try $0.map { try $0.get() } }
        #expect(applied.filter { !$0.isEmpty }.count == 1)
        #expect(applied.flatMap { $0 } == EmbeddedResources.migrations(for: .postgres).map(\.name))
        let connection = try PostgresConnection(url: url)
        #expect(try connection.query("SELECT count(*) AS n FROM schema_migrations").first?.int("n")
            == Int64(EmbeddedResources.migrations(for: .postgres).count))
    }

    @Test("the schema behaves as SQLite's: state moves with each change; an account's mail, log and state go with it")
    func triggers() throws {
        let connection = try PostgresConnection(url: url)
        try migrator.migrate(on: connection)
        try connection.run(
            "INSERT INTO mailbox_accounts (id, address, password_hash, quota, created_at) VALUES (?, ?, '', 100, 0)",
            [.text("acc"), .text("a@example.test")])
        for id in ["m1", "m2"] {
            try connection.run(
                """
                INSERT INTO mail_messages (id, address, folder, envelope_from, from_json, to_json, cc_json, reply_to_json,
                    in_reply_to, refs, preview, size, received_at, raw, thread_id)
                VALUES (?, ?, 'inbox', '', '[]', '[]', '[]', '[]', '[]', '[]', '', 3, 0, ?, ?)
                """,
                [.text(id), .text("a@example.test"), .blob([1, 2, 3]), .text(id)])
        }
        try connection.run("UPDATE mail_messages SET is_read = 1 WHERE id = ?", [.text("m1")])
        #expect(try connection.query("SELECT state FROM mail_state WHERE address = ?", [.text("a@example.test")])
            .first?.int("state") == 3)
        try connection.run("DELETE FROM mailbox_accounts WHERE id = ?", [.text("acc")])
        #expect(try connection.query("SELECT id FROM mail_messages").isEmpty)
        // Its change log and state go with it (migration 0022).
        #expect(try connection.query("SELECT address FROM mail_changes").isEmpty)
        #expect(try connection.query("SELECT state FROM mail_state").isEmpty)
        // One remote user per email whatever its case, as SQLite's COLLATE NOCASE.
        try connection.run("INSERT INTO remote_users (email, password_hash_url) VALUES ('Ann@Example.test', 'u')")
        do {
            try connection.run("INSERT INTO remote_users (email, password_hash_url) VALUES ('ann@example.TEST', 'u')")
            Issue.record("the same email in another case was accepted")
        } catch let error as StorageError {
            #expect(error.code == .constraintUnique)
        }
    }
}
