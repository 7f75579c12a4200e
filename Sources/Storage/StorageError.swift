import CSQLite

/// An error from the storage layer: a SQLite or PostgreSQL failure, a misuse, or a migration refusal.
///
/// The message never carries bound values; it is SQLite's own text or ours.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Compare with `==` or match in a `switch` with `case .full:`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A UNIQUE or PRIMARY KEY constraint refused the write (surfaces answer 409 or "already used").
        public static let constraintUnique = Code("constraintUnique")
        /// Another constraint (NOT NULL, CHECK, FOREIGN KEY, STRICT type) refused the write.
        public static let constraint = Code("constraint")
        /// The disk or the database's `max_page_count` is full (SQLITE_FULL).
        public static let full = Code("full")
        /// The database stayed locked for longer than the busy timeout (SQLITE_BUSY / SQLITE_LOCKED).
        public static let busy = Code("busy")
        /// An operating-system I/O error (SQLITE_IOERR).
        public static let io = Code("io")
        /// The database file could not be opened (SQLITE_CANTOPEN).
        public static let cantOpen = Code("cantOpen")
        /// The database is read-only (SQLITE_READONLY).
        public static let readOnly = Code("readOnly")
        /// The file is damaged or not a database (SQLITE_CORRUPT / SQLITE_NOTADB).
        public static let corrupt = Code("corrupt")
        /// The API was used wrongly (bad SQL shape, nested transaction, SQLITE_MISUSE / SQLITE_RANGE).
        public static let misuse = Code("misuse")
        /// Something expected to exist does not (a row).
        public static let notFound = Code("notFound")
        /// An applied migration changed or is missing from this build: the server must not start.
        public static let migrationChanged = Code("migrationChanged")
        /// The migrations are inconsistent (duplicate version, a new migration older than applied ones).
        public static let migrationInvalid = Code("migrationInvalid")
        /// Any other SQLite failure (syntax error, no such table, out of memory, ...).
        public static let sqlite = Code("sqlite")
        /// The database server cannot be reached, or the connection to it was lost (PostgreSQL down or
        /// restarting). A write that failed this way may or may not have been committed.
        public static let unavailable = Code("unavailable")
        /// Any other failure reported by a database server (PostgreSQL's SQLSTATE is in the message).
        public static let server = Code("server")
        /// A write whose outcome is unknown: PostgreSQL committed it locally but its synchronous standby never
        /// confirmed it (the wait was canceled), or the commit was not confirmed within the commit timeout. It must
        /// not be acknowledged (surfaces answer 503): it may be lost at a failover, or found done later.
        public static let inDoubt = Code("inDoubt")

        /// The code's name, e.g. `full`.
        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// SQLite's extended result code when the failure came from SQLite, else nil.
    public let sqliteResultCode: Int?
    /// Human-readable detail (SQLite's message or ours); never contains bound values.
    public let message: String

    /// Makes an error of our own, or one classified by another backend (not reported by SQLite).
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.sqliteResultCode = nil
        self.message = message
    }

    /// Classifies a SQLite (extended) result code.
    init(resultCode: Int32, message: String) {
        self.code = StorageError.classify(resultCode)
        self.sqliteResultCode = Int(resultCode)
        self.message = message
    }

    private init(code: Code, sqliteResultCode: Int?, message: String) {
        self.code = code
        self.sqliteResultCode = sqliteResultCode
        self.message = message
    }

    /// The same error with `context` (say, a migration file name) in front of the message.
    public func withContext(_ context: String) -> StorageError {
        StorageError(code: code, sqliteResultCode: sqliteResultCode, message: "\(context): \(message)")
    }

    /// True when the failure is the store's condition rather than the request's: full disk, I/O error,
    /// busy past the timeout, unopenable or read-only database, a server out of reach, a commit in doubt. The app
    /// answers 503 for these.
    public var isUnavailable: Bool {
        switch code {
        case .full, .io, .busy, .cantOpen, .readOnly, .unavailable, .inDoubt: return true
        default: return false
        }
    }

    /// `code: message`, plus the SQLite result code when there is one.
    public var description: String {
        if let sqliteResultCode { return "\(code): \(message) (sqlite \(sqliteResultCode))" }
        return "\(code): \(message)"
    }

    // Extended constraint codes are composite macros that Swift does not import.
    static let constraintPrimaryKey: Int32 = SQLITE_CONSTRAINT | (6 << 8)
    static let constraintUniqueCode: Int32 = SQLITE_CONSTRAINT | (8 << 8)

    static func classify(_ resultCode: Int32) -> Code {
        if resultCode == constraintPrimaryKey || resultCode == constraintUniqueCode { return .constraintUnique }
        switch resultCode & 0xff {
        case SQLITE_CONSTRAINT: return .constraint
        case SQLITE_FULL: return .full
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_IOERR: return .io
        case SQLITE_CANTOPEN: return .cantOpen
        case SQLITE_READONLY: return .readOnly
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt
        case SQLITE_MISUSE, SQLITE_RANGE: return .misuse
        default: return .sqlite
        }
    }
}
