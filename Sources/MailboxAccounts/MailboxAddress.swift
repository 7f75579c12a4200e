import EmailAddresses

/// A mailbox address, normalised and checked: `local@domain`.
///
/// Rules (Mail.td publishes none; these are ours): the whole address is at most 254 characters; the
/// local part is 1 to 64 characters of `a-z 0-9 . _ -`, starts and ends with a letter or digit and
/// has no `..`; the domain is whatever follows the single `@`, in IDNA's ASCII form (membership is checked
/// separately).
public struct MailboxAddress: Sendable, Hashable, CustomStringConvertible {
    /// The part before `@`.
    public let local: String
    /// The part after `@`.
    public let domain: String

    /// `local@domain`.
    public var description: String { "\(local)@\(domain)" }

    /// Parses and normalises `text` as every address is (``EmailAddress``: ASCII case only, the domain's IDNA form, so
    /// a look-alike such as KELVIN SIGN is refused, never folded onto `k`); `nil` when it breaks a rule above.
    public init?(_ text: String) {
        guard text.utf8.count <= 254, let address = EmailAddress(text) else { return nil }
        let local = address.localPart
        guard (1...64).contains(local.utf8.count), !local.contains("..") else { return nil }
        let bytes = Array(local.utf8)
        for byte in bytes where !Self.isLocalByte(byte) { return nil }
        guard Self.isAlphanumeric(bytes[0]), Self.isAlphanumeric(bytes[bytes.count - 1]) else { return nil }
        self.local = local
        self.domain = address.domain.name
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isLocalByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }
}
