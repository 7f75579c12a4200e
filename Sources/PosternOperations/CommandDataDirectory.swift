import Foundation
import PosternApp

/// What an operator command finds where its configuration keeps the data, before it opens anything (issue 68: `owner
/// list` without the server's `--data-dir` made an empty `./data`, printed nothing and exited 0). A command that reads
/// (lists, shows, changes what is there) never makes a data directory; only `serve` and the commands that make the
/// first things in one (`migrate`, `pro create`, `owner create`) do, and say so. Whichever it is, the command says
/// which directory it read when no server runs there, so that the wrong one shows.
public enum CommandDataDirectory {
    /// Whether a command may make the data it works on.
    public enum Use: Sendable {
        /// It reads or changes what is there: a missing database is an error.
        case reads
        /// It makes the first things in a data directory: a missing one is made, and said.
        case creates
    }

    /// What is there.
    public enum Finding: Sendable, Equatable {
        /// The data is in PostgreSQL (`POSTERN_DATABASE_URL`): no directory to look at.
        case database
        /// A server runs on `directory` (its ``RunningServerRecord`` names a live process).
        case running(directory: String)
        /// `directory` holds a database and no server runs there.
        case idle(directory: String)
        /// Nothing was there; a ``Use/creates`` command makes `directory`.
        case new(directory: String)

        /// The line a command prints on standard error about it, nil when there is nothing to say (a server runs
        /// there, or the data is in PostgreSQL).
        public var note: String? {
            switch self {
            case .database, .running: return nil
            case .idle(let directory): return "read \(directory); no server is running there"
            case .new(let directory): return "made a new data directory, \(directory) (none was there)"
            }
        }
    }

    /// A ``Use/reads`` command's configuration names a database that does not exist.
    public struct Missing: Error, Sendable, Equatable, CustomStringConvertible {
        /// The directory, absolute.
        public var directory: String
        public var description: String {
            "no Postern data in \(directory): this command reads a data directory and makes none; name the server's "
                + "with --data-dir or --config, or give its --ports-file"
        }
    }

    /// Looks where `configuration` keeps the data.
    /// - Throws: ``Missing`` for a ``Use/reads`` command when the SQLite database file is not there;
    ///   ``ConfigurationError`` for a `POSTERN_DATABASE_URL` that does not parse.
    public static func find(_ configuration: PosternConfiguration, use: Use) throws -> Finding {
        guard case .sqlite(let path) = try configuration.storage.database() else { return .database }
        let directory = absolute(configuration.storage.dataDirectory)
        if !FileManager.default.fileExists(atPath: path) {
            guard use == .creates else { throw Missing(directory: absolute((path as NSString).deletingLastPathComponent)) }
            if !FileManager.default.fileExists(atPath: configuration.storage.dataDirectory) {
                return .new(directory: directory)
            }
        }
        if RunningServerRecord.running(dataDirectory: configuration.storage.dataDirectory) != nil {
            return .running(directory: directory)
        }
        return .idle(directory: directory)
    }

    /// `path` absolute and without `.` or `..` steps, as a person compares directories.
    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
