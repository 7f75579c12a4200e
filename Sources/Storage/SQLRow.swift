/// One result row: column names in select order and their values.
public struct SQLRow: Sendable, Equatable {
    /// Column names as SQLite reports them (the `AS` alias when given).
    public let columns: [String]
    /// Values in the same order as `columns`.
    public let values: [SQLValue]

    /// Makes a row from parallel arrays of names and values.
    /// - Precondition: `columns.count == values.count`.
    public init(columns: [String], values: [SQLValue]) {
        precondition(columns.count == values.count, "SQLRow needs one value per column")
        self.columns = columns
        self.values = values
    }

    /// The value of the first column with this name (exact match first, then ASCII case-insensitive,
    /// as SQLite resolves names), or nil when the row has no such column.
    public subscript(column: String) -> SQLValue? {
        if let index = columns.firstIndex(of: column) { return values[index] }
        let lowered = column.lowercased()
        if let index = columns.firstIndex(where: { $0.lowercased() == lowered }) { return values[index] }
        return nil
    }

    /// The value at a zero-based column position, or nil when out of range.
    public subscript(index: Int) -> SQLValue? {
        values.indices.contains(index) ? values[index] : nil
    }

    /// The column as an integer; nil when absent, NULL or of another storage class.
    public func int(_ column: String) -> Int64? {
        if case .integer(let value)? = self[column] { return value }
        return nil
    }

    /// The column as a double; integers are widened, nil when absent, NULL, text or blob.
    public func double(_ column: String) -> Double? {
        switch self[column] {
        case .real(let value)?: return value
        case .integer(let value)?: return Double(value)
        default: return nil
        }
    }

    /// The column as text; nil when absent, NULL or of another storage class.
    public func text(_ column: String) -> String? {
        if case .text(let value)? = self[column] { return value }
        return nil
    }

    /// The column as bytes; nil when absent, NULL or of another storage class.
    public func blob(_ column: String) -> [UInt8]? {
        if case .blob(let value)? = self[column] { return value }
        return nil
    }
}
