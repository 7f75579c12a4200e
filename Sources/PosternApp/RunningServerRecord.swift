import Foundation
import JSON

/// What a running `postern serve` leaves in its data directory (`server.json`): the JSON line it prints of what it
/// bound (``PosternRuntime/boundAddressesLine``: `http`, `smtp`, `sandbox`, `data_dir`, `public_url`, `pid`), written
/// whole at start and removed at a clean stop. A command on the same data directory (`postern web link`) reads it to
/// print links to the server that runs, on whatever port it took; the same line in a `--ports-file` serves alike.
///
/// A record whose `pid` is no live process (the server was killed) is not believed.
public enum RunningServerRecord {
    /// The record's name in the data directory.
    public static let fileName = "server.json"

    /// The record's path in `dataDirectory`.
    public static func path(dataDirectory: String) -> String {
        (dataDirectory.hasSuffix("/") ? dataDirectory : dataDirectory + "/") + fileName
    }

    /// Writes `line` as the record of `dataDirectory`, whole (a reader never sees half of it), mode 0600.
    /// - Throws: ``RunningServerRecordError`` naming the path and the reason.
    public static func write(_ line: [UInt8], dataDirectory: String) throws {
        try writeWhole(line, to: path(dataDirectory: dataDirectory))
    }

    /// Writes `bytes` to `path` through a temporary file renamed over it.
    /// - Throws: ``RunningServerRecordError`` naming the path and the reason.
    public static func writeWhole(_ bytes: [UInt8], to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(bytes), attributes: [.posixPermissions: 0o600]),
            rename(temporary, path) == 0
        else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw RunningServerRecordError(path: path, reason: reason)
        }
    }

    /// Removes the record of `dataDirectory` when it is this process's (another server on the same directory keeps
    /// its own).
    public static func remove(dataDirectory: String) {
        let path = path(dataDirectory: dataDirectory)
        guard let bytes = FileManager.default.contents(atPath: path), read(Array(bytes))?.pid == Int(getpid()) else {
            return
        }
        unlink(path)
    }

    /// What a record says: the base URL links go under (`public_url`, else `http`), the data directory and the
    /// process.
    public struct Contents: Sendable, Equatable {
        public var baseURL: String
        public var dataDirectory: String?
        public var pid: Int?
    }

    /// Reads a record's (or a ports file's) line; nil when it is no JSON object with an `http` or `public_url`.
    public static func read(_ line: [UInt8]) -> Contents? {
        guard let object = try? JSONValue.parse(line),
            let base = object["public_url"]?.stringValue ?? object["http"]?.stringValue, !base.isEmpty
        else { return nil }
        let pid = object["pid"]?.intValue.map { Int($0) }
        return Contents(
            baseURL: base.hasSuffix("/") ? String(base.dropLast()) : base,
            dataDirectory: object["data_dir"]?.stringValue, pid: pid)
    }

    /// The record of the server running on `dataDirectory`: nil when there is none, it cannot be read, or its
    /// process is gone.
    public static func running(dataDirectory: String) -> Contents? {
        guard let bytes = FileManager.default.contents(atPath: path(dataDirectory: dataDirectory)),
            let contents = read(Array(bytes))
        else { return nil }
        if let pid = contents.pid, !isAlive(pid) { return nil }
        return contents
    }

    /// Whether process `pid` exists (a signal 0 reaches it, or it is another user's).
    static func isAlive(_ pid: Int) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid_t(pid), 0) == 0 || errno == EPERM
    }
}

/// A running-server record or ports file that could not be written.
public struct RunningServerRecordError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot write \(path): \(reason)" }
}
