/// An email address as Postern compares it, the one normalisation every owner, Pro user, mailbox, agent inbox,
/// custom-domain mailbox, sender check and provider sign-in uses (issue 66): two spellings are the same address exactly
/// when their ``text`` is the same.
///
/// - The local part is lower-cased by ASCII rules only (`A`-`Z`); any other character is kept exactly as given, byte
///   for byte. So `Kate` is `kate`, but `K` written as KELVIN SIGN (`U+212A`), `ſ` (`U+017F`), `İ` (`U+0130`), a
///   fullwidth letter or an `i` with a combining dot is another address, never folded onto an ASCII one (Swift's
///   `lowercased()` folds the first and third). Whether a surface takes such an address at all is its own rule
///   (``localPartIsASCII``): providers' sign-in refuses them, Mail.td's mailboxes allow `a-z 0-9 . _ -` only.
/// - The domain is its IDNA form, ASCII and lower-cased (``EmailDomain``).
///
/// Equality and hashing are by the bytes of ``text``, as SQL compares the stored form, not by Unicode's canonical
/// equivalence (which Swift's `String ==` applies).
public struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    /// The part before the `@`, never empty: ASCII capitals lower-cased, everything else as given.
    public let localPart: String
    /// The part after the `@`.
    public let domain: EmailDomain

    /// `local@domain`: the form stored and compared.
    public var text: String { localPart + "@" + domain.name }

    /// ``text``.
    public var description: String { text }

    /// Whether the local part is ASCII only (RFC 5321's, not RFC 6531's internationalised form).
    public var localPartIsASCII: Bool { localPart.unicodeScalars.allSatisfy(\.isASCII) }

    /// `text` normalised; nil unless it has exactly one `@`, a local part before it without a control character (C0,
    /// DEL, C1: no address has one) and a domain ``EmailDomain`` takes after it. Nothing is trimmed: a surface trims
    /// what its form allows before.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "@", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, let domain = EmailDomain(parts[1]),
            !parts[0].unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        else { return nil }
        localPart = ASCIICase.lowered(parts[0])
        self.domain = domain
    }

    /// Whether `one` and `other` are the same address: both normalise, to the same ``text``. Two texts that are not
    /// addresses are not the same address, even when equal.
    public static func same(_ one: some StringProtocol, _ other: some StringProtocol) -> Bool {
        guard let one = EmailAddress(one), let other = EmailAddress(other) else { return false }
        return one == other
    }

    /// `text` normalised (``text``), or nil when it is no address.
    public static func normalized(_ text: some StringProtocol) -> String? {
        EmailAddress(text)?.text
    }

    public static func == (lhs: EmailAddress, rhs: EmailAddress) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        for byte in text.utf8 { hasher.combine(byte) }
    }
}

extension EmailAddress {
    /// The form `text` is compared in: its ``text`` when it is an address, else `text` with ASCII case folded, which
    /// no address's ``text`` equals (so a lookup by it finds nothing rather than another address).
    public static func key(_ text: some StringProtocol) -> String {
        EmailAddress(text)?.text ?? ASCIICase.lowered(text)
    }
}
