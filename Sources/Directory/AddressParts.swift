import EmailAddresses

/// An address split at its `@`, normalised (``EmailAddress``: ASCII case folded, the domain's IDNA form): the form
/// every directory resolves.
public struct AddressParts: Sendable, Hashable {
    /// The part before the `@`, never empty.
    public let localPart: String
    /// The part after the `@`.
    public let domain: String

    /// `address` normalised and split; nil unless ``EmailAddress`` takes it (exactly one `@`, a local part before it,
    /// a domain after it).
    public init?(_ address: String) {
        guard let parsed = EmailAddress(address) else { return nil }
        localPart = parsed.localPart
        domain = parsed.domain.name
    }

    /// `local@domain`, normalised.
    public var text: String { localPart + "@" + domain }
}
