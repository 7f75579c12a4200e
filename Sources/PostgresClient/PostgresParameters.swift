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
        /// Copies `bytes` once, straight from where they are, into a buffer libpq reads. Text values need a
        /// terminating NUL; a zero-length blob still needs a non-null pointer.
        func add<Bytes: Collection<UInt8>>(_ bytes: Bytes, binary: Bool) {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + 1, alignment: 1)
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
            buffers.append(buffer)
            lengths.append(Int32(bytes.count))
            formats.append(binary ? 1 : 0)
        }
        for value in values {
            switch value {
            case .null:
                buffers.append(nil)
                lengths.append(0)
                formats.append(0)
            case .integer(let number): add(String(number).utf8, binary: false)
            case .real(let number): add(floatText(number).utf8, binary: false)
            case .text(let string): add(string.utf8, binary: false)
            case .blob(let data): add(data, binary: true)
            }
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
