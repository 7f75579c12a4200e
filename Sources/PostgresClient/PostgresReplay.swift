import Storage

/// How ``PostgresDatabase/read(_:)`` runs a read body of one statement on a ``PostgresPipe`` while keeping the bodies
/// the stores write (synchronous closures over an `SQLConnection`): the body runs once against ``Capture``, which
/// records its first statement and stops it there, the statement runs on the pipe, and the body runs again against
/// ``Replay``, which answers that statement with its rows. A body that does anything else (a second statement, a
/// transaction, another statement the second time) goes to the pool, whole, as before; a read body writes nothing
/// (SQLite's readers are read-only, and the pipe's session is), so running its statement again there is safe.
///
/// So a read body may run twice (the first time up to its first statement): it must have no effect but its result,
/// as every store's read is.
enum PostgresReplay {
    /// Thrown to stop a body: at its first statement during the capture, or at what the replay cannot answer.
    struct Stop: Error {}

    /// Records the body's first statement if it is a `query`, and stops the body there.
    final class Capture: SQLConnection {
        private(set) var statement: (sql: String, bindings: [SQLValue])?
        /// The body did something the replay cannot answer (a second statement, a transaction, a write).
        private(set) var beyond = false
        /// A ``Stop`` was thrown at the body.
        private(set) var stopped = false

        var dialect: SQLDialect { .postgres }

        func query(_ sql: String, _ bindings: [SQLValue]) throws -> [SQLRow] {
            if statement == nil && !beyond { statement = (sql, bindings) } else { beyond = true }
            return try stop()
        }

        func execute(_ sql: String) throws {
            beyond = true
            let _: Void = try stop()
        }

        func run(_ sql: String, _ bindings: [SQLValue]) throws -> Int {
            beyond = true
            return try stop()
        }

        func transaction<T>(_ body: () throws -> T) throws -> T {
            beyond = true
            return try stop()
        }

        func readTransaction<T>(_ body: () throws -> T) throws -> T {
            beyond = true
            return try stop()
        }

        private func stop<T>() throws -> T {
            stopped = true
            throw Stop()
        }

        func rollbackIfOpen() {}

        /// The one statement `body` starts with, or nil when it starts with something else, or with nothing, or when
        /// it returned normally after a ``Stop`` was thrown at it: it caught the stop, so what it does with an error
        /// is not known to be free of effects, and it runs once, on the pool.
        static func statement<T>(of body: (any SQLConnection) throws -> T) -> (sql: String, bindings: [SQLValue])? {
            let capture = Capture()
            do {
                _ = try body(capture)
                if capture.stopped { return nil }
            } catch {}
            return capture.beyond ? nil : capture.statement
        }
    }

    /// Answers the captured statement with its rows, once; anything else stops the body (it then goes to the pool).
    final class Replay: SQLConnection {
        private let sql: String
        private let bindings: [SQLValue]
        private var rows: [SQLRow]?
        /// The body asked for something the replay cannot answer.
        private(set) var stopped = false

        init(sql: String, bindings: [SQLValue], rows: [SQLRow]) {
            self.sql = sql
            self.bindings = bindings
            self.rows = rows
        }

        var dialect: SQLDialect { .postgres }

        func query(_ sql: String, _ bindings: [SQLValue]) throws -> [SQLRow] {
            guard sql == self.sql, bindings == self.bindings, let rows = rows.take() else { return try stop() }
            return rows
        }

        func execute(_ sql: String) throws { let _: Void = try stop() }
        func run(_ sql: String, _ bindings: [SQLValue]) throws -> Int { try stop() }
        func transaction<T>(_ body: () throws -> T) throws -> T { try stop() }
        func readTransaction<T>(_ body: () throws -> T) throws -> T { try stop() }
        func rollbackIfOpen() {}

        private func stop<T>() throws -> T {
            stopped = true
            throw Stop()
        }
    }
}
