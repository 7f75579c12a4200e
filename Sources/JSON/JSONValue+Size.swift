extension JSONValue {
    /// The number of bytes ``serialize()`` would write, or nil as soon as that passes `limit`.
    ///
    /// A budget check that never allocates: it visits at most `limit` bytes' worth of the value, however far a
    /// value that shares its parts by reference (a JMAP result reference used twice, say) would expand.
    public func serializedCount(notExceeding limit: Int) -> Int? {
        var count = 0
        return add(to: &count, limit: limit) ? count : nil
    }

    /// Adds this value's serialized length to `count`; false once `count` passes `limit`.
    private func add(to count: inout Int, limit: Int) -> Bool {
        switch self {
        case .string(let value): count += Self.serializedCount(of: value)
        case .int(let value):
            var magnitude = value.magnitude
            count += value < 0 ? 2 : 1
            while magnitude >= 10 {
                magnitude /= 10
                count += 1
            }
        case .double(let value): count += value.isFinite ? "\(value)".utf8.count : 4
        case .bool(let value): count += value ? 4 : 5
        case .null: count += 4
        case .array(let elements):
            count += 1 + max(1, elements.count)  // the brackets and the commas between elements
            for element in elements where count <= limit {
                guard element.add(to: &count, limit: limit) else { return false }
            }
        case .object(let members):
            count += 1 + max(1, members.count)  // the braces and the commas between members
            for (key, value) in members where count <= limit {
                count += Self.serializedCount(of: key) + 1  // the key and its colon
                guard value.add(to: &count, limit: limit) else { return false }
            }
        }
        return count <= limit
    }

    /// The length of `value` as a JSON string, with its quotes and escapes (as `writeString` writes it).
    private static func serializedCount(of value: String) -> Int {
        let plain = value.utf8.withContiguousStorageIfAvailable { needsEscaping($0) ? nil : $0.count + 2 }
        if let plain, let plain { return plain }
        var count = 2
        for byte in value.utf8 {
            count += shortEscape(byte) != nil ? 2 : byte < 0x20 ? 6 : 1  // \n, \u0001, or the byte
        }
        return count
    }
}
