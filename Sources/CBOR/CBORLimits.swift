/// The bounds of one decode: every allocation and every recursion the input can cause is capped here, before any
/// byte of a hostile input is believed.
///
/// The defaults fit WebAuthn: an attestation object is a few kilobytes (an RSA-4096 COSE key and a certificate chain
/// fit in 64 KiB) and four levels deep (attestation object, statement, `x5c` array, certificate).
public struct CBORLimits: Sendable, Equatable {
    /// The largest input, in bytes. Default 65,536.
    public var maximumBytes = 64 * 1024
    /// The deepest nesting of arrays, maps and tags; the top-level item is at depth 1, so an array of integers is 2
    /// deep. Default 16.
    public var maximumDepth = 16
    /// The most data items in one input, every array element, map key and map value and tag content counted. Default
    /// 4,096.
    public var maximumItems = 4096

    /// The defaults.
    public init() {}

    /// Limits other than the defaults.
    /// - Precondition: every limit is positive (``validate()`` says which is not).
    public init(maximumBytes: Int, maximumDepth: Int, maximumItems: Int) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
        self.maximumItems = maximumItems
    }

    /// Refuses limits a decoder cannot run with, naming the limit at fault.
    /// - Throws: ``CBORLimitsError``.
    public func validate() throws(CBORLimitsError) {
        if maximumBytes < 1 { throw CBORLimitsError(limit: "maximumBytes") }
        if maximumDepth < 1 { throw CBORLimitsError(limit: "maximumDepth") }
        if maximumItems < 1 { throw CBORLimitsError(limit: "maximumItems") }
    }
}

/// A limit of ``CBORLimits`` that is not positive.
public struct CBORLimitsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name of the property at fault.
    public let limit: String

    /// An error naming `limit`.
    public init(limit: String) {
        self.limit = limit
    }

    /// "<limit> must be positive".
    public var description: String { "\(limit) must be positive" }
}
