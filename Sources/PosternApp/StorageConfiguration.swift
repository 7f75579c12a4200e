import Foundation
import PostgresClient
import ServerKit

/// Where Postern keeps its data and how long it keeps what grows: the data directory, the database, the mail change
/// log and the audit trail.
///
/// ## Configuration keys
/// - `POSTERN_DATA_DIR` (a directory, default `./data`): ``dataDirectory``.
/// - `POSTERN_DATABASE_URL` (`sqlite:///path`, `postgres://...` or libpq's `key=value` form, default the data
///   directory's SQLite file): ``databaseURL``; more than one PostgreSQL host needs `target_session_attrs=read-write`.
/// - `POSTERN_DATABASE_COMMIT_TIMEOUT_SECONDS` (1 to 600, default 10): ``commitTimeoutSeconds``.
/// - `POSTERN_DATABASE_CONNECTIONS` (1 to 64, default 6): ``databaseConnections``.
/// - `POSTERN_DATABASE_REQUIRE_SYNCHRONOUS_STANDBY` (on/off, default off; PostgreSQL only):
///   ``requireSynchronousStandby``.
/// - `POSTERN_POSTGRES_LOOP_READS` (on/off, default on; PostgreSQL only): ``postgresLoopReads``.
/// - `POSTERN_MAIL_CHANGES_KEPT` (100 to 10000000, default 10000): ``mailChangesKept``.
/// - `POSTERN_AUDIT_DAYS` (1 to 3650, default 90): ``auditDays``.
public struct StorageConfiguration: Sendable {
    /// SQLite database and generated keys. Default `./data`.
    public var dataDirectory = "./data"
    /// Where accounts, tokens' epochs and mail live: nil or empty for the data directory's SQLite file,
    /// `sqlite:///absolute/path` for another SQLite file, or `postgres://user:password@host:port/database` (also
    /// `postgresql://`, libpq's query options such as `sslmode=require` included) for PostgreSQL, also with several hosts
    /// (`postgres://user@h1:5432,h2:5432/postern?target_session_attrs=read-write`, a primary and its standbys: libpq
    /// connects to whichever accepts writes) or in libpq's key/value form (`host=h1,h2 port=5432,5432 dbname=postern
    /// target_session_attrs=read-write`). See ``database()``.
    public var databaseURL: String?
    /// PostgreSQL only: seconds a database call may take before the request answers 503 instead (a write then has an
    /// unknown outcome: it is never canceled, may be found done later, and its connection leaves the pool). What it
    /// bounds is chiefly a commit waiting for a synchronous standby that is gone, which nothing else bounds (not even
    /// `statement_timeout`). Default 10.
    public var commitTimeoutSeconds = 10
    /// PostgreSQL only: how many connections this instance keeps (besides its three listening ones). Each carries one
    /// statement at a time and waits idle for the server's answer, so there are more than the cores: with fewer, the
    /// round trips queue behind each other while the instance and the server have CPU to spare (on two cores the
    /// account read did better with 6 than with the 3 there were before: docs/performance.md). Every instance's count
    /// adds up against the server's `max_connections`. Default 6.
    public var databaseConnections = 6
    /// PostgreSQL only: the operator declares that the database replicates synchronously, and Postern holds it to it:
    /// after every committed write it asks its session whether the commit waited for a synchronous standby
    /// (`synchronous_standby_names` set, `synchronous_commit` neither `off` nor `local`), and answers 503 (the commit in
    /// doubt) when not, instead of acknowledging a write one server alone holds. One more round trip per write, none
    /// per read. For a manager that may reload a primary without its standby for a moment before demoting it (Patroni
    /// #2841) with instances reaching the servers directly (a multi-host URL): docs/postgres.md, Patroni. Default off.
    public var requireSynchronousStandby = false
    /// PostgreSQL only: the event loops send the hot point reads (`GET /api/accounts/{id}` with the account's own token)
    /// on PostgreSQL connections of their own, in libpq's non-blocking mode, and answer from the loop when the server
    /// has: no thread waits for the round trip. Each loop opens up to two such connections on its first read (they add
    /// up against `max_connections` with ``databaseConnections``); a read they cannot take goes through the pool as
    /// before. A write past ``commitTimeoutSeconds`` closes them, as it makes the pool's idle connections anew, so that
    /// none reads on an old primary a failover left up. Off: every read goes through the pool. Default on: on a release
    /// build it costs Postern about a sixth less CPU per read than the pool, and the failover and Patroni stages pass
    /// with it (docs/performance.md, 2026-11-30).
    public var postgresLoopReads = true
    /// How many change-log rows each mail address keeps for JMAP's `*/changes` (trimmed every minute); a client at an
    /// older state gets `cannotCalculateChanges` and starts over. Default 10000.
    public var mailChangesKept = 10000
    /// Days the audit trail keeps an event; older ones are purged every 10 minutes. Default 90.
    public var auditDays = 90
    /// Whether ``dataDirectory`` is a temporary directory of the test profile, removed when `serve` exits (set by
    /// ``ConfigurationLoader``, never by a key).
    public var removeDataDirectoryAtExit = false

    /// ``dataDirectory`` as an absolute path (a relative one taken from the working directory), without `.` steps
    /// or repeated slashes (`./data` is `/srv/postern/data`, never `/srv/postern/./data`): where `serve` writes its
    /// ``RunningServerRecord`` and `postern web link` reads it, so that writer and reader agree. `..` is kept: past a
    /// symbolic link it is not the parent the text names.
    public var absoluteDataDirectory: String {
        let directory = dataDirectory
        return Self.withoutDotSteps(
            directory.hasPrefix("/") ? directory : FileManager.default.currentDirectoryPath + "/" + directory)
    }

    /// `path` (absolute) without `.` steps, empty steps and a final slash.
    static func withoutDotSteps(_ path: String) -> String {
        "/" + path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    }

    /// Every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range (never
    ///   echoing the database URL, which may hold a password).
    public init(config: ConfigurationReader) throws {
        if let directory = config.text("POSTERN_DATA_DIR") { dataDirectory = directory }
        databaseURL = config.text("POSTERN_DATABASE_URL")
        if let seconds = try config.integer("POSTERN_DATABASE_COMMIT_TIMEOUT_SECONDS") { commitTimeoutSeconds = seconds }
        if let count = try config.integer("POSTERN_DATABASE_CONNECTIONS") { databaseConnections = count }
        if let required = try config.flag("POSTERN_DATABASE_REQUIRE_SYNCHRONOUS_STANDBY") {
            requireSynchronousStandby = required
        }
        if let on = try config.flag("POSTERN_POSTGRES_LOOP_READS") { postgresLoopReads = on }
        if let count = try config.integer("POSTERN_MAIL_CHANGES_KEPT") { mailChangesKept = count }
        if let days = try config.integer("POSTERN_AUDIT_DAYS") { auditDays = days }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        if case .sqlite = try database(), requireSynchronousStandby {
            throw ConfigurationError(
                key: "POSTERN_DATABASE_REQUIRE_SYNCHRONOUS_STANDBY",
                message: "applies to PostgreSQL only (POSTERN_DATABASE_URL names a SQLite database)")
        }
        guard (1...600).contains(commitTimeoutSeconds) else {
            throw ConfigurationError(key: "POSTERN_DATABASE_COMMIT_TIMEOUT_SECONDS", message: "must be from 1 to 600")
        }
        guard (1...64).contains(databaseConnections) else {
            throw ConfigurationError(key: "POSTERN_DATABASE_CONNECTIONS", message: "must be from 1 to 64")
        }
        guard (100...10_000_000).contains(mailChangesKept) else {
            throw ConfigurationError(key: "POSTERN_MAIL_CHANGES_KEPT", message: "must be from 100 to 10000000")
        }
        guard (1...3650).contains(auditDays) else {
            throw ConfigurationError(key: "POSTERN_AUDIT_DAYS", message: "must be from 1 to 3650")
        }
    }

    /// The database ``databaseURL`` names.
    public enum DatabaseLocation: Sendable, Equatable {
        /// A SQLite file.
        case sqlite(path: String)
        /// A PostgreSQL server (the URL as libpq takes it).
        case postgres(url: String)
    }

    /// Where the database is, from ``databaseURL`` and ``dataDirectory``.
    /// - Throws: ``ConfigurationError`` naming `POSTERN_DATABASE_URL` for any other scheme, a PostgreSQL string libpq
    ///   cannot read, or several hosts without `target_session_attrs=read-write` (the URL itself is never echoed: it may
    ///   hold a password).
    public func database() throws -> DatabaseLocation {
        guard let url = databaseURL?.trimmingCharacters(in: .whitespaces), !url.isEmpty else {
            return .sqlite(path: DataDirectory.databasePath(dataDirectory))
        }
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") || PostgresConnectionString.isKeyValueForm(url) {
            do {
                _ = try PostgresConnectionString(validating: url)
            } catch {
                throw ConfigurationError(key: "POSTERN_DATABASE_URL", message: error.description)
            }
            return .postgres(url: url)
        }
        if url.hasPrefix("sqlite://") {
            let path = String(url.dropFirst("sqlite://".count))
            guard path.hasPrefix("/"), path.count > 1 else {
                throw ConfigurationError(
                    key: "POSTERN_DATABASE_URL",
                    message: "sqlite:// needs an absolute path: sqlite:///var/lib/postern/db")
            }
            return .sqlite(path: path)
        }
        throw ConfigurationError(
            key: "POSTERN_DATABASE_URL",
            message: "must be sqlite:///absolute/path, postgres://user:password@host:port/database (or libpq's "
                + "key=value form), or unset")
    }

    /// The error of a command that copies SQLite files, given a PostgreSQL database.
    package static func notSQLite(_ message: String) -> ConfigurationError {
        ConfigurationError(key: "POSTERN_DATABASE_URL", message: message)
    }
}
