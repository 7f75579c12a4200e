/// An address split at its `@`, lower-cased: the form every directory resolves.
public struct AddressParts: Sendable, Hashable {
    /// The part before the `@`, never empty.
    public let localPart: String
    /// The part after the `@`.
    public let domain: String

    /// `address` lower-cased and split; nil unless it has exactly one `@` and a local part before it.
    public init?(_ address: String) {
        let parts = address.lowercased().split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return nil }
        localPart = String(parts[0])
        domain = String(parts[1])
    }

    /// `local@domain`, lower-cased.
    public var text: String { localPart + "@" + domain }
}
