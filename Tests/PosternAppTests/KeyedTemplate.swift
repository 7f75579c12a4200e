import Foundation
import Logging
import PosternTestSupport
import Synchronization
@testable import PosternApp

/// The keys a new server makes at its first start (its signing keys and the agent inbox domain's DKIM keys: two
/// RSA-2048 keys among them, and on PostgreSQL the sealing key's scrypt), made once per run instead of at every
/// ``TestServer/start(_:_:clock:logger:accessLog:services:freshKeys:)``: making them was most of the CPU time of the
/// suites that start servers. A test server's data starts as a copy of a keyed template, the migrated template with
/// those keys: on SQLite a data directory (the database and `keys/`) in `$TMPDIR/postern-test-templates`, on
/// PostgreSQL a template database on ``PostgresTestServer``, each made by the first test process that needs it, as the
/// migrated templates are. So the servers a test starts hold the same keys; a test that needs keys of its own (the
/// first start's key making, or two servers whose tokens must not verify on each other) passes `freshKeys: true`.
enum KeyedTemplate {
    /// In the templates' names beside the migrations' digest: changed when what the keyed templates hold changes.
    private static let version = "k2"
    private static let sqliteMade = Mutex<String?>(nil)

    /// Copies the SQLite keyed template to the data directory `directory` (which does not exist yet).
    static func copySQLite(to directory: String, logger: Logger) throws {
        let template = try sqliteMade.withLock { made in
            if let made { return made }
            let path = try MigratedTemplate.madeOnce("keyed-\(version)-\(MigratedTemplate.fingerprint(.sqlite))") {
                scratch in
                let data = scratch + "/data"
                try DataDirectory.prepare(data)
                try MigratedTemplate.copySQLite(to: DataDirectory.databasePath(data), logger: logger)
                try makeKeys(TestServer.configuration(.sqlite, dataDirectory: data), logger: logger)
                return data
            }
            made = path
            return path
        }
        try FileManager.default.copyItem(atPath: template, toPath: directory)
    }

    /// A new database copied from the PostgreSQL keyed template; its URL.
    static func postgresDatabase(logger: Logger) throws -> String {
        let server = try PostgresTestServer.shared()
        let name = "postern_keyed_\(version)_\(MigratedTemplate.fingerprint(.postgres))"
        let template = try server.template(named: name, copying: server.migratedTemplate()) { url in
            var configuration = TestServer.configuration(.sqlite)
            configuration.storage.databaseURL = url
            configuration.signingKeys.promotionSeconds = 0
            try makeKeys(configuration, logger: logger)
        }
        return try server.database(copying: template)
    }

    /// Makes the keys a server makes at its first start, as it makes them, in the configuration's database.
    private static func makeKeys(_ configuration: PosternConfiguration, logger: Logger) throws {
        let (database, _) = try DatabaseOpener.migrated(configuration, readers: 1, logger: logger)
        defer { database.close() }
        let now: @Sendable () -> Int64 = { WallClock.system.seconds }
        let sealer = try SigningKeyStores.sealer(configuration: configuration, database: database)
        _ = try SigningKeyStores.open(configuration: configuration, database: database, sealer: sealer, clock: now)
        _ = try PosternRuntime.agentDomainDKIMKeys(
            configuration, database: database, sealer: sealer, clock: now, logger: logger)
    }
}
