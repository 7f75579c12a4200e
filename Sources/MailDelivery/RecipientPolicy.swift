import Directory

/// What delivery does with addresses the directory does not know as they are: subaddressing (RFC 5233) and the
/// catch-all (`POSTERN_RECIPIENT_DELIMITER`, `POSTERN_SMTP_ACCEPT`).
public struct RecipientPolicy: Sendable, Equatable {
    /// The reserved address under which the catch-all's copies are stored: `.invalid` (RFC 2606) can never be a
    /// real domain, so no account, inbox or verified domain can have it, and no mail is ever sent there.
    public static let catchAllAddress = "catch-all@postern.invalid"

    /// The catch-all's quota when none is configured (`POSTERN_CATCH_ALL_QUOTA`): 1 GiB.
    public static let defaultCatchAllQuota: Int64 = 1 << 30

    /// The characters that separate a local part from its tag (`alice+tag`); empty turns subaddressing off. The
    /// local part is cut at the first of them.
    public var delimiters: String
    /// Where mail for unknown and foreign addresses is kept (never relayed); nil refuses it (`550`).
    public var catchAll: Recipient?

    /// - Parameters:
    ///   - delimiters: the subaddress delimiters; empty (the default here) turns subaddressing off.
    ///   - catchAll: the catch-all recipient, from ``catchAll(quota:)``; nil (the default) refuses.
    public init(delimiters: String = "", catchAll: Recipient? = nil) {
        self.delimiters = delimiters
        self.catchAll = catchAll
    }

    /// The catch-all recipient: ``catchAllAddress`` with `quota` bytes.
    public static func catchAll(quota: Int64 = defaultCatchAllQuota) -> Recipient {
        Recipient(address: catchAllAddress, quota: quota)
    }

    /// `address` without its tag (`alice+tag@dom` is `alice@dom`); nil when subaddressing is off, the local part has
    /// no delimiter, or nothing is left before it.
    public func base(of address: String) -> String? {
        guard !delimiters.isEmpty, let parts = AddressParts(address),
            let cut = parts.localPart.firstIndex(where: { delimiters.contains($0) }),
            cut != parts.localPart.startIndex
        else { return nil }
        return String(parts.localPart[..<cut]) + "@" + parts.domain
    }
}
