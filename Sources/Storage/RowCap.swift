/// A cap on the rows an insert may add to: what `count` counts (a `SELECT COUNT(*) AS n ...` with `bindings`) must be
/// under `limit` for the insert to run (``SQLConnection/insert(_:_:within:)``, with the insert's other caps). For rows
/// anyone may make without signing in (a passkey sign-in's challenge, a sign-in provider's login transaction), counted
/// in the database so that every instance shares the cap.
public struct RowCap: Sendable {
    /// The count, as `SELECT COUNT(*) AS n FROM ... WHERE ...`.
    public var count: String
    public var bindings: [SQLValue]
    /// How many rows the count may reach.
    public var limit: Int

    /// - Parameters: see the properties.
    public init(count: String, bindings: [SQLValue], limit: Int) {
        self.count = count
        self.bindings = bindings
        self.limit = limit
    }
}

extension SQLConnection {
    /// Runs the insert `sql` with `bindings` unless one of `caps` is reached, each counted in order (the cheapest
    /// first: the first reached stops the rest), all on this connection (inside the caller's write).
    /// - Returns: false, and nothing inserted, when the rows some cap counts already number its limit.
    /// - Throws: storage errors.
    public func insert(_ sql: String, _ bindings: [SQLValue], within caps: [RowCap]) throws -> Bool {
        for cap in caps {
            if try query(cap.count, cap.bindings).first?.int("n") ?? 0 >= cap.limit { return false }
        }
        try run(sql, bindings)
        return true
    }
}
