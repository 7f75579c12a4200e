/// A mailbox address, lower-cased and checked: `local@domain`.
///
/// Rules (Mail.td publishes none; these are ours): the whole address is at most 254 characters; the
/// local part is 1 to 64 characters of `a-z 0-9 . _ -`, starts and ends with a letter or digit and
/// has no `..`; the domain is whatever follows the single `@` (membership is checked separately).
public struct MailboxAddress: Sendable, Hashable, CustomStringConvertible {
    /// The part before `@`.
    public let local: String
    /// The part after `@`.
    public let domain: String

    /// `local@domain`.
    public var description: String { "\(local)@\(domain)" }

    /// Parses and normalises (lower-cases) `text`; `nil` when it breaks a rule above.
    public init?(_ text: String) {
        let lowered = text.lowercased()
        guard lowered.utf8.count <= 254 else { return nil }
        let parts = lowered.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty else { return nil }
        let local = parts[0]
        guard (1...64).contains(local.utf8.count), !local.contains("..") else { return nil }
        let bytes = Array(local.utf8)
        for byte in bytes where !Self.isLocalByte(byte) { return nil }
        guard Self.isAlphanumeric(bytes[0]), Self.isAlphanumeric(bytes[bytes.count - 1]) else { return nil }
        let domain = parts[1]
        for byte in domain.utf8
        where !(Self.isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")) {
            return nil
        }
        self.local = String(local)
        self.domain = String(domain)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isLocalByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }
}
