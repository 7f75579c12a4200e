/// A DNS TXT record that publishes a key a domain's outbound mail is signed with (RFC 6376 section 3.6.2.2):
/// `<selector>._domainkey.<domain>` holding `v=DKIM1; k=rsa; p=...` (or `k=ed25519`, RFC 8463).
public struct SigningKeyRecord: Sendable, Equatable {
    /// The record's name: `<selector>._domainkey.<domain>`.
    public let name: String
    /// The record's value: a DKIM key record's tag list.
    public let value: String

    /// - Parameters:
    ///   - name: `<selector>._domainkey.<domain>`.
    ///   - value: the tag list, `v=DKIM1; k=...; p=...`.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Whether `published`, the joined strings of one TXT record at ``name``, publishes this key: every tag of
    /// ``value`` is there with the same value. Whitespace is ignored (a DNS provider may fold a long record, RFC 6376
    /// section 3.6.2.2), tag names and values are compared as written, the order of the tags and tags this value does
    /// not have (`t=`, `n=`) do not matter.
    public func isPublished(as published: String) -> Bool {
        let wanted = Self.tags(value)
        let found = Self.tags(published)
        return !wanted.isEmpty && wanted.allSatisfy { found[$0.key] == $0.value }
    }

    /// A tag list's tags (RFC 6376 section 3.2), whitespace removed; a later tag of one name replaces an earlier.
    static func tags(_ list: String) -> [String: String] {
        var tags: [String: String] = [:]
        for part in list.split(separator: ";") {
            let compact = part.filter { !$0.isWhitespace }
            guard let equals = compact.firstIndex(of: "="), equals != compact.startIndex else { continue }
            tags[String(compact[..<equals])] = String(compact[compact.index(after: equals)...])
        }
        return tags
    }
}
