import Logging
import PosternTestSupport
import Storage
import Testing

@testable import PostgresClient

/// The notice receiver: which notices make a commit in doubt, fed the server's exact fields, then the connection and
/// the database failing the statement that heard one (a real server raising the same WARNING).
@Suite("PostgreSQL notices", .onPostgres)
struct PostgresNoticeTests {
    /// PostgreSQL 15's `SyncRepWaitForLSN` (src/backend/replication/syncrep.c), on a query cancel during the wait.
    static let canceledWait = "canceling wait for synchronous replication due to user request"
    static let canceledWaitDetail =
        "The transaction has already committed locally, but might not have been replicated to the standby."

    @Test("the canceled wait for the synchronous standby (SQLSTATE 01000) is a commit in doubt; other notices are not")
    func classification() {
        #expect(PostgresNotice.isCommitInDoubt(sqlState: "01000", message: Self.canceledWait, routine: "SyncRepWaitForLSN"))
        #expect(PostgresNotice.isCommitInDoubt(sqlState: "01000", message: Self.canceledWait, routine: nil))
        // The wording of the administrator's variant, should a client ever receive it.
        #expect(
            PostgresNotice.isCommitInDoubt(
                sqlState: "01000",
                message: "canceling the wait for synchronous replication and terminating connection due to "
                    + "administrator command", routine: nil))
        // Under another lc_messages the message is translated; the routine that raised it is not.
        #expect(
            PostgresNotice.isCommitInDoubt(
                sqlState: "01000", message: "annulation de l'attente pour la réplication synchrone",
                routine: "SyncRepWaitForLSN"))
        #expect(!PostgresNotice.isCommitInDoubt(sqlState: "42P07", message: "relation \"t\" already exists, skipping", routine: "transformCreateStmt"))
        #expect(!PostgresNotice.isCommitInDoubt(sqlState: "00000", message: Self.canceledWait, routine: nil))
        #expect(!PostgresNotice.isCommitInDoubt(sqlState: nil, message: Self.canceledWait, routine: "SyncRepWaitForLSN"))
        #expect(!PostgresNotice.isCommitInDoubt(sqlState: "01000", message: "some other warning", routine: "exec_stmt_raise"))
        #expect(!PostgresNotice.isCommitInDoubt(sqlState: "01000", message: nil, routine: nil))
    }

    /// SQL raising the server's exact warning, SQLSTATE and detail (PL/pgSQL's RAISE stands in for the wait's end).
    static let raiseCanceledWait = """
        RAISE WARNING '\(canceledWait)' USING ERRCODE = '01000', DETAIL = '\(canceledWaitDetail)'
        """

    func connection() throws -> (PostgresConnection, String) {
        let url = try PostgresTestServer.shared().freshDatabase()
        let connection = try PostgresConnection(url: url)
        try connection.execute(
            """
            CREATE TABLE d (id BIGINT PRIMARY KEY);
            CREATE FUNCTION canceled_wait() RETURNS BIGINT LANGUAGE plpgsql AS $$
            BEGIN \(Self.raiseCanceledWait); RETURN 1; END $$;
            CREATE FUNCTION canceled_wait_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN \(Self.raiseCanceledWait); RETURN NULL; END $$;
            CREATE CONSTRAINT TRIGGER at_commit AFTER INSERT ON d DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW EXECUTE FUNCTION canceled_wait_trigger();
            """)
        return (connection, url)
    }

    @Test("a statement that hears the warning fails with .inDoubt; informational notices pass; the connection goes on")
    func statementInDoubt() throws {
        let (connection, _) = try connection()
        #expect {
            _ = try connection.query("SELECT canceled_wait() AS x")
        } throws: { ($0 as? StorageError)?.code == .inDoubt }
        #expect {
            try connection.execute("SELECT canceled_wait()")
        } throws: { ($0 as? StorageError)?.code == .inDoubt }
        try connection.execute("CREATE TABLE IF NOT EXISTS d (id BIGINT PRIMARY KEY)")  // NOTICE: already exists
        #expect(try connection.query("SELECT 1 AS one").first?.int("one") == 1)
    }

    @Test("a COMMIT that hears it fails the transaction with .inDoubt naming its first statement, though committed")
    func commitInDoubt() throws {
        let (connection, _) = try connection()
        // The deferred trigger raises the warning while COMMIT runs, as the wait for the standby does.
        #expect {
            try connection.transaction { try connection.run("INSERT INTO d (id) VALUES (?)", [.integer(7)]) }
        } throws: {
            guard let error = $0 as? StorageError else { return false }
            return error.code == .inDoubt && error.message.contains("INSERT INTO d (id) VALUES (?)")
        }
        // Committed locally, as the server said: what the client must not be told succeeded, nor told failed.
        #expect(try connection.query("SELECT id FROM d").map { $0.int("id") } == [7])
        #expect {
            try connection.run("INSERT INTO d (id) VALUES (?)", [.integer(8)])
        } throws: { ($0 as? StorageError)?.code == .inDoubt }
        try connection.transaction { _ = try connection.query("SELECT id FROM d") }
    }

    @Test("the database passes .inDoubt on to the surface (503) from write and writeSync")
    func databaseInDoubt() async throws {
        let (_, url) = try connection()
        let database = try PostgresDatabase(url: url, count: 1, logger: Logger(label: "test"))
        defer { database.close() }
        await #expect {
            try await database.write { try $0.run("INSERT INTO d (id) VALUES (?)", [.integer(1)]) }
        } throws: { ($0 as? StorageError)?.code == .inDoubt && ($0 as? StorageError)?.isUnavailable == true }
        #expect {
            try database.writeSync { try $0.run("INSERT INTO d (id) VALUES (?)", [.integer(2)]) }
        } throws: { ($0 as? StorageError)?.code == .inDoubt }
        #expect(try await database.read { try $0.query("SELECT count(*) AS n FROM d") }.first?.int("n") == 2)
    }
}
