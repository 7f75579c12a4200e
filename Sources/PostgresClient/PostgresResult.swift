import CLibPQ
import Storage

/// Result rows as `SQLRow`s, each column read by its type.
enum PostgresResult {
    /// The names of `result`'s columns, in order.
    static func columns(_ result: OpaquePointer) -> [String] {
        (0..<Int(PQnfields(result))).map { String(cString: PQfname(result, Int32($0))) }
    }

    /// `result`'s rows, named by `columns` (``columns(_:)`` of this result, or of an earlier result of the same
    /// prepared statement with as many columns).
    static func rows(_ result: OpaquePointer, columns: [String]) -> [SQLRow] {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        let types = (0..<columnCount).map { PQftype(result, Int32($0)) }
        var rows: [SQLRow] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var values: [SQLValue] = []
            values.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                let r = Int32(row)
                let c = Int32(column)
                if PQgetisnull(result, r, c) != 0 {
                    values.append(.null)
                    continue
                }
                let length = Int(PQgetlength(result, r, c))
                let bytes = UnsafeRawBufferPointer(start: PQgetvalue(result, r, c), count: length)
                values.append(value(bytes, type: types[column]))
            }
            rows.append(SQLRow(columns: columns, values: values))
        }
        return rows
    }

    /// One text-format value by its column type.
    static func value(_ bytes: UnsafeRawBufferPointer, type: Oid) -> SQLValue {
        switch type {
        case 17:  // bytea, as \x followed by hex digits: no text made on the way
            return .blob(hexBytes(bytes))
        case 16:  // bool
            return .integer(bytes.count == 1 && bytes[0] == UInt8(ascii: "t") ? 1 : 0)
        default:
            break
        }
        let text = String(decoding: bytes, as: UTF8.self)
        switch type {
        case 20, 21, 23, 26:  // int8, int2, int4, oid
            return Int64(text).map(SQLValue.integer) ?? .text(text)
        case 700, 701:  // float4, float8
            return Double(text).map(SQLValue.real) ?? .text(text)
        case 1700:  // numeric: SUM and AVG of integers; an integer when it has no fraction, as SQLite's are
            if let integer = Int64(text) { return .integer(integer) }
            return Double(text).map(SQLValue.real) ?? .text(text)
        default:
            return .text(text)
        }
    }

    private static func hexBytes(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x") else {
            return Array(bytes)
        }
        func nibble(_ byte: UInt8) -> UInt8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            default: return byte - UInt8(ascii: "A") + 10
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count - 2) / 2)
        var index = 2
        while index + 1 < bytes.count {
            out.append(nibble(bytes[index]) << 4 | nibble(bytes[index + 1]))
            index += 2
        }
        return out
    }
}
