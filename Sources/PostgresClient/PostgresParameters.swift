import CLibPQ
import Storage

/// Bound values as libpq takes them: text for numbers and strings, binary for bytes.
enum PostgresParameters {
    static let int8: Oid = 20
    static let float8: Oid = 701
    static let text: Oid = 25
    static let bytea: Oid = 17

    /// The parameter type a value is declared with when its statement is prepared (0: let the server
    /// infer it, for NULL).
    static func typeOID(_ value: SQLValue) -> Oid {
        switch value {
        case .null: return 0
        case .integer: return int8
        case .real: return float8
        case .text: return text
        case .blob: return bytea
        }
    }

    /// Calls `body` with libpq's three parallel arrays (values, lengths, formats) for `values`; the
    /// memory lives until `body` returns.
    static func withEncoded<R>(
        _ values: [SQLValue],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R
    ) -> R {
        var buffers: [UnsafeMutableRawBufferPointer?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        buffers.reserveCapacity(values.count)
        defer { buffers.forEach { $0?.deallocate() } }
        for value in values {
            let bytes: [UInt8]?
            var binary = false
            switch value {
            case .null: bytes = nil
            case .integer(let number): bytes = Array(String(number).utf8)
            case .real(let number): bytes = Array(floatText(number).utf8)
            case .text(let string): bytes = Array(string.utf8)
            case .blob(let data):
                bytes = data
                binary = true
            }
            guard let bytes else {
                buffers.append(nil)
                lengths.append(0)
                formats.append(0)
                continue
            }
            // Text values need a terminating NUL; a zero-length blob still needs a non-null pointer.
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + 1, alignment: 1)
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
            buffers.append(buffer)
            lengths.append(Int32(bytes.count))
            formats.append(binary ? 1 : 0)
        }
        let pointers: [UnsafePointer<CChar>?] = buffers.map {
            $0.map { UnsafePointer($0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
        }
        return pointers.withUnsafeBufferPointer { valuePointer in
            lengths.withUnsafeBufferPointer { lengthPointer in
                formats.withUnsafeBufferPointer { formatPointer in
                    body(valuePointer.baseAddress, lengthPointer.baseAddress, formatPointer.baseAddress)
                }
            }
        }
    }

    /// A double as PostgreSQL's float8 input reads it back exactly (Swift prints the shortest text that
    /// round-trips).
    static func floatText(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return "\(value)"
    }
}

/// Result rows as `SQLRow`s, each column read by its type.
enum PostgresResult {
    static func rows(_ result: OpaquePointer) -> [SQLRow] {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
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
        let text = String(decoding: bytes, as: UTF8.self)
        switch type {
        case 20, 21, 23, 26:  // int8, int2, int4, oid
            return Int64(text).map(SQLValue.integer) ?? .text(text)
        case 16:  // bool
            return .integer(text == "t" ? 1 : 0)
        case 700, 701:  // float4, float8
            return Double(text).map(SQLValue.real) ?? .text(text)
        case 1700:  // numeric: SUM and AVG of integers; an integer when it has no fraction, as SQLite's are
            if let integer = Int64(text) { return .integer(integer) }
            return Double(text).map(SQLValue.real) ?? .text(text)
        case 17:  // bytea, as \x followed by hex digits
            return .blob(hexBytes(bytes))
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

/// PostgreSQL's SQLSTATE classes as storage errors.
enum PostgresErrors {
    static func storageError(sqlState: String, message: String) -> StorageError {
        let detail = sqlState.isEmpty ? message : "\(message) (SQLSTATE \(sqlState))"
        switch sqlState {
        case "23505": return StorageError(.constraintUnique, detail)
        case "53100": return StorageError(.full, detail)
        case "25006": return StorageError(.readOnly, detail)
        case "55P03", "57014": return StorageError(.busy, detail)  // lock not available, statement timeout
        case "57P01", "57P02", "57P03": return StorageError(.unavailable, detail)  // shutting down, starting up
        default: break
        }
        switch sqlState.prefix(2) {
        case "23": return StorageError(.constraint, detail)
        case "08": return StorageError(.unavailable, detail)
        case "53": return StorageError(.busy, detail)
        case "58": return StorageError(.io, detail)
        case "XX": return StorageError(.corrupt, detail)
        default: return StorageError(.server, detail)
        }
    }
}
