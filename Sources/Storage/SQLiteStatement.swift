import CSQLite

/// A prepared statement owned by one connection; finalized when the cache drops it.
///
/// Not thread-safe: used only on its connection's queue.
final class SQLiteStatement {
    let handle: OpaquePointer
    let columnNames: [String]

    init(handle: OpaquePointer) {
        self.handle = handle
        let count = Int(sqlite3_column_count(handle))
        self.columnNames = (0..<count).map { index in
            sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? "column\(index)"
        }
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds values to `?` parameters 1...n; the count must match the statement's parameters.
    func bind(_ values: [SQLValue], connection: OpaquePointer) throws {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard expected == values.count else {
            throw StorageError(.misuse, "statement has \(expected) parameters, \(values.count) values given")
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .null:
                result = sqlite3_bind_null(handle, index)
            case .integer(let number):
                result = sqlite3_bind_int64(handle, index, number)
            case .real(let number):
                result = sqlite3_bind_double(handle, index, number)
            case .text(let text):
                // The implicit String-to-pointer conversion is never nil, so "" binds empty text, not NULL.
                result = sqlite3_bind_text(handle, index, text, Int32(text.utf8.count), postern_sqlite_transient())
            case .blob(let bytes):
                if bytes.isEmpty {
                    result = sqlite3_bind_zeroblob(handle, index, 0)
                } else {
                    result = bytes.withUnsafeBytes { buffer in
                        sqlite3_bind_blob(
                            handle, index, buffer.baseAddress, Int32(buffer.count), postern_sqlite_transient())
                    }
                }
            }
            guard result == SQLITE_OK else { throw SQLiteConnection.error(result, connection) }
        }
    }

    /// Reads the current row's columns with their storage classes.
    func currentRow() -> SQLRow {
        var values: [SQLValue] = []
        values.reserveCapacity(columnNames.count)
        for index in 0..<Int32(columnNames.count) {
            switch sqlite3_column_type(handle, index) {
            case SQLITE_INTEGER:
                values.append(.integer(sqlite3_column_int64(handle, index)))
            case SQLITE_FLOAT:
                values.append(.real(sqlite3_column_double(handle, index)))
            case SQLITE_TEXT:
                let count = Int(sqlite3_column_bytes(handle, index))
                if let pointer = sqlite3_column_text(handle, index) {
                    values.append(
                        .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)))
                } else {
                    values.append(.text(""))
                }
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(handle, index))
                if let pointer = sqlite3_column_blob(handle, index), count > 0 {
                    values.append(.blob(Array(UnsafeRawBufferPointer(start: pointer, count: count))))
                } else {
                    values.append(.blob([]))
                }
            default:
                values.append(.null)
            }
        }
        return SQLRow(columns: columnNames, values: values)
    }
}
