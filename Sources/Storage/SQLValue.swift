/// One SQLite value, as bound to a statement parameter or read from a result column.
///
/// SQLite stores a `Double.nan` as NULL; every other value round-trips unchanged.
public enum SQLValue: Sendable, Equatable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE 754 double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Raw bytes; an empty array is stored as a zero-length blob, not as NULL.
    case blob([UInt8])
}

extension SQLValue: ExpressibleByNilLiteral {
    /// `nil` binds SQL NULL.
    public init(nilLiteral: ()) { self = .null }
}

extension SQLValue: ExpressibleByIntegerLiteral {
    /// An integer literal binds `.integer`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension SQLValue: ExpressibleByFloatLiteral {
    /// A floating-point literal binds `.real`.
    public init(floatLiteral value: Double) { self = .real(value) }
}

extension SQLValue: ExpressibleByStringLiteral {
    /// A string literal binds `.text`.
    public init(stringLiteral value: String) { self = .text(value) }
}
