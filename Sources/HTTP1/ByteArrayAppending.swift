extension Array where Element == UInt8 {
    /// Makes room for `additional` more bytes, growing geometrically as `append` does. For buffers that
    /// gather many appends (a connection's output): `reserveCapacity(count + n)` there reallocates to the
    /// exact size each time the buffer is full, copying everything gathered so far again (as the access
    /// log's line buffer once did).
    @inlinable
    package mutating func reserveMore(_ additional: Int) {
        let needed = count + additional
        if needed > capacity { reserveCapacity(Swift.max(needed, capacity * 2)) }
    }

    /// Appends a literal's bytes in one copy, where appending `"...".utf8` goes through the generic
    /// sequence path.
    @inline(__always)
    package mutating func appendLiteral(_ literal: StaticString) {
        literal.withUTF8Buffer { append(contentsOf: $0) }
    }
}
