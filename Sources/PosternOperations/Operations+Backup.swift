import AuthCrypto
import EmbeddedResources
import Foundation
import JSON
import Logging
import PosternApp
import SigningKeys
import Storage

/// `postern backup` and `postern restore`: one archive holds everything a data directory needs to answer as before,
/// the database and the keys that signed its tokens, so that a restore does not silently generate new keys and
/// refuse every token already given out.
extension Operations {
    /// The archive's entries besides the key files (`keys/<name>`).
    static let databaseEntry = "postern.sqlite3"
    static let manifestEntry = "manifest.json"
    static let certificateEntries = ["smtp-tls-cert.pem", "smtp-tls-key.pem"]

    /// Writes one archive to `path` (mode 0600; it must not exist): a consistent copy of the SQLite database made
    /// with the online backup while the server may be serving, the signing keys of the data directory, the SMTP
    /// TLS pair when the data directory holds one, and `manifest.json` (format, Postern version, schema version,
    /// each file's size and SHA-256), last. A POSIX tar file: `tar -tf` lists it. The audit trail of the database
    /// backed up records the backup once the archive is written.
    /// - Throws: ``ConfigurationError`` for PostgreSQL (pg_dump's job) or an existing `path`; I/O errors.
    public static func backup(configuration: PosternConfiguration, to path: String, logger: Logger) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw ConfigurationError(key: "--to", message: "\(path) exists; choose a new file")
        }
        guard case .sqlite(let source) = try configuration.storage.database() else {
            throw StorageConfiguration.notSQLite(
                "postern backup copies SQLite files; back up PostgreSQL with pg_dump or its own tools "
                    + "and keep POSTERN_KEY_SECRET with the dump (docs/postgres.md)")
        }
        let directory = configuration.storage.dataDirectory
        try DataDirectory.prepare(directory, logger: logger)
        let scratch = path + ".partial-\(UUID().uuidString)"
        let copy = scratch + ".sqlite3"
        defer {
            unlink(copy)
            unlink(scratch)
        }
        let database = try Database.open(path: source, readerCount: 1, logger: logger)
        defer { database.close() }
        try database.backup(to: copy)
        let schema = try schemaVersion(ofDatabaseAt: copy, logger: logger)

        let writer = try BackupArchiveWriter(creating: scratch, modifiedAt: unixNow())
        var files: [JSONValue] = []
        func record(_ name: String, _ size: Int64, _ digest: [UInt8]) {
            files.append(.object([("name", .string(name)), ("size", .int(size)), ("sha256", .string(Hex.encode(digest)))]))
        }
        let (size, digest) = try writer.add(databaseEntry, file: copy)
        record(databaseEntry, size, digest)
        for (name, bytes) in try KeyStore.files(ofDataDirectory: directory) {
            try writer.add("keys/" + name, bytes: bytes)
            record("keys/" + name, Int64(bytes.count), SHA256.hash(bytes))
        }
        for name in certificateEntries where FileManager.default.fileExists(atPath: directory + "/" + name) {
            let (size, digest) = try writer.add(name, file: directory + "/" + name)
            record(name, size, digest)
        }
        let manifest = JSONValue.object([
            ("format", "postern-backup"), ("format_version", .int(1)), ("postern_version", .string(PosternVersion.text)),
            ("schema_version", .int(schema)), ("created_at", .int(unixNow())), ("files", .array(files)),
        ])
        try writer.add(manifestEntry, bytes: manifest.serialize() + [0x0a])
        try writer.finish()
        // link(2) does not replace a file that appeared meanwhile, as rename(2) would.
        guard link(scratch, path) == 0 else {
            throw ConfigurationError(key: "--to", message: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        logger.info("backup written", metadata: ["archive": "\(path)", "schema": "\(schema)", "files": "\(files.count)"])
        // Recorded in the database backed up, after the archive is whole: the archive itself does not hold this event.
        recordOperator(
            database, target: "backup",
            details: ["archive": path, "schema": String(schema), "files": String(files.count)], logger: logger)
    }

    /// Unpacks an archive of ``backup(configuration:to:logger:)`` into `directory`, which must not exist or be
    /// empty: every file is checked against the manifest (size and SHA-256), the database's integrity is checked,
    /// and an archive whose schema is newer than this build's migrations is refused (restore it with the release
    /// that wrote it, or a newer one). Nothing is left in `directory` unless all of it checked out; then the restored
    /// database's audit trail records the restore.
    /// - Returns: the manifest's schema version.
    /// - Throws: ``ConfigurationError`` naming `--from` or `--data-dir` with the reason.
    @discardableResult
    public static func restore(from archive: String, dataDirectory directory: String, logger: Logger) throws -> Int64 {
        let target = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        if let existing = try? FileManager.default.contentsOfDirectory(atPath: target), !existing.isEmpty {
            throw ConfigurationError(
                key: "--data-dir", message: "\(target) is not empty; restore into a new data directory")
        }
        let staging = target + ".restoring-\(UUID().uuidString)"
        try DataDirectory.prepare(staging)
        var keep = false
        defer { if !keep { try? FileManager.default.removeItem(atPath: staging) } }
        let refused = { (reason: String) in ConfigurationError(key: "--from", message: "\(archive): \(reason)") }

        var found: [String: (size: Int64, sha256: String)] = [:]
        var manifestBytes: [UInt8]?
        do {
            let reader = try BackupArchiveReader(path: archive)
            while let (name, size) = try reader.next() {
                guard found[name] == nil, name != manifestEntry || manifestBytes == nil else {
                    throw refused("\(name) appears twice")
                }
                if name == manifestEntry {
                    guard size <= 1 << 20 else { throw refused("the manifest is too large") }
                    var bytes: [UInt8] = []
                    try reader.content(size: size) { bytes += $0 }
                    manifestBytes = bytes
                    continue
                }
                guard Self.isRestorable(name) else { throw refused("unexpected entry \(name)") }
                if name.hasPrefix("keys/") { try DataDirectory.prepare(staging + "/keys") }
                let path = staging + "/" + name
                let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else { throw refused("cannot write \(path)") }
                let output = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
                let hasher = SHA256Hasher()
                try reader.content(size: size) { chunk in
                    hasher.update(chunk)
                    try output.write(contentsOf: chunk)
                }
                try output.synchronize()
                try output.close()
                found[name] = (size, Hex.encode(hasher.finish()))
            }
        } catch let error as BackupArchive.Failure {
            throw refused(error.description)
        }

        guard let manifestBytes, let manifest = try? JSONValue.parse(manifestBytes),
            manifest["format"]?.stringValue == "postern-backup", manifest["format_version"]?.intValue == 1,
            let schema = manifest["schema_version"]?.intValue, let listed = manifest["files"]?.arrayValue
        else { throw refused("not a Postern backup (no readable manifest.json)") }
        let known = Int64(EmbeddedResources.migrations.map(\.version).max() ?? 0)
        guard schema <= known else {
            throw refused(
                "its schema (\(schema)) is newer than this build's (\(known)); restore it with Postern "
                    + "\(manifest["postern_version"]?.stringValue ?? "of that version") or later")
        }
        var expected: [String: (size: Int64, sha256: String)] = [:]
        for file in listed {
            guard let name = file["name"]?.stringValue, let size = file["size"]?.intValue,
                let digest = file["sha256"]?.stringValue
            else { throw refused("the manifest lists a file without name, size or sha256") }
            expected[name] = (size, digest)
        }
        for (name, file) in expected where found[name].map({ $0.size != file.size || $0.sha256 != file.sha256 }) ?? true {
            throw refused("\(name) is missing or damaged (size or SHA-256 differ from the manifest)")
        }
        if let extra = found.keys.first(where: { expected[$0] == nil }) {
            throw refused("\(extra) is not in the manifest")
        }
        guard found[databaseEntry] != nil else { throw refused("it holds no database") }
        let restoredSchema = try schemaVersion(ofDatabaseAt: staging + "/" + databaseEntry, logger: logger)
        guard restoredSchema == schema else {
            throw refused("the database's schema (\(restoredSchema)) is not the manifest's (\(schema))")
        }

        if FileManager.default.fileExists(atPath: target) { rmdir(target) }
        guard rename(staging, target) == 0 else {
            throw ConfigurationError(
                key: "--data-dir", message: "cannot move the restored files to \(target): \(String(cString: strerror(errno)))")
        }
        keep = true
        logger.info("backup restored", metadata: ["data_dir": "\(target)", "schema": "\(schema)"])
        let restored = try Database.open(path: target + "/" + databaseEntry, readerCount: 1, logger: logger)
        defer { restored.close() }
        recordOperator(
            restored, target: "restore", details: ["archive": archive, "schema": String(schema)], logger: logger)
        return schema
    }

    /// Whether an archive entry may be written into a data directory: the database, the SMTP pair, or a plain file
    /// name under `keys/`.
    static func isRestorable(_ name: String) -> Bool {
        if name == databaseEntry || certificateEntries.contains(name) { return true }
        guard name.hasPrefix("keys/") else { return false }
        let file = name.dropFirst("keys/".count)
        return !file.isEmpty && !file.hasPrefix(".") && !file.contains("/")
    }

    /// The newest migration recorded in the SQLite database at `path`, after an integrity check.
    /// - Throws: ``ConfigurationError`` when the database is damaged.
    static func schemaVersion(ofDatabaseAt path: String, logger: Logger) throws -> Int64 {
        let database = try Database.open(path: path, readerCount: 1, logger: logger)
        defer { database.close() }
        return try database.readSync { connection in
            guard try connection.query("PRAGMA integrity_check").first?.text("integrity_check") == "ok" else {
                throw ConfigurationError(key: "--from", message: "the database in the archive is damaged")
            }
            return try connection.query("SELECT MAX(version) AS v FROM schema_migrations").first?.int("v") ?? 0
        }
    }
}
