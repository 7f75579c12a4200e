import CLibPQ

/// A statement is prepared once per connection, text and kinds of the values bound (``PostgresConnection``,
/// ``PostgresLoopConnection``).
struct PostgresStatementKey: Hashable {
    let sql: String
    let types: [Oid]
}

/// A prepared statement, with the names of its result's columns once a result has told them (they are the same
/// for every run, so each row shares one array instead of making its own strings).
final class PostgresPreparedStatement {
    let name: String
    let parameterCount: Int
    var columns: [String]?

    init(name: String, parameterCount: Int) {
        self.name = name
        self.parameterCount = parameterCount
    }
}
