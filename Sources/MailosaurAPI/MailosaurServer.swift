import AuthCrypto
import EmailAddresses

/// One of Mailosaur's servers (its inboxes) as Postern maps them onto the store: one address's mail. The operator's
/// servers are the SMTP catch-all and each address that holds mail (a mailbox, an agent inbox, a Pro user's sandbox);
/// a Pro user's API token has one, that user's sandbox.
///
/// A server's id is derived from its address alone (``id(of:)``), so that it is the same on every instance, after
/// every restart and for every credential that sees it, and a suite can keep it in its configuration as it keeps a
/// Mailosaur server id.
public struct MailosaurServer: Sendable, Equatable {
    /// The 8 characters of ``id(of:)``.
    public var id: String
    /// What `name` says: `Catch-all` for the catch-all, else the address.
    public var name: String
    /// The store address whose mail the server holds (``EmailAddress/key(_:)``).
    public var address: String

    /// The server of `address`, named `name` (the address when nil).
    public init(address: String, name: String? = nil) {
        self.address = EmailAddress.key(address)
        self.id = Self.id(of: address)
        self.name = name ?? self.address
    }

    /// The alphabet of an id: RFC 4648's base32hex (section 7) in lower case, the ten digits then `a` to `v`.
    static let alphabet = Array("0123456789") + Array("abcdefghijklmnopqrstuv")

    /// The id of `address`'s server: the first 40 bits of the SHA-256 of its normalised form (``EmailAddress/key(_:)``,
    /// UTF-8), written as 8 characters of lower-case base32hex, most significant first. Mailosaur's SDKs refuse a
    /// server id that is not 8 characters long (their `messages.get`).
    public static func id(of address: String) -> String {
        let digest = SHA256.hash(EmailAddress.key(address).utf8)
        var bits: UInt64 = 0
        for byte in digest.prefix(5) { bits = bits << 8 | UInt64(byte) }
        return String((0..<8).map { alphabet[Int((bits >> UInt64(35 - 5 * $0)) & 31)] })
    }

    /// Whether `text` has the form of a server id (8 characters of the alphabet), checked before any lookup.
    public static func isWellFormed(_ text: String) -> Bool {
        text.count == 8 && text.allSatisfy { alphabet.contains($0) }
    }
}

/// The port through which the Mailosaur API finds a Pro user's SMTP sandbox from the user's API token (the
/// composition root fills it with the sandbox of `MailSandbox`, which this surface does not know).
public protocol MailosaurSandboxes: Sendable {
    /// The store address of the sandbox of the Pro user whose live API token `token` is (made now when the user has
    /// none yet); nil when `token` is no live Pro API token of an active user.
    func sandboxAddress(apiToken token: String) async throws -> String?
}
