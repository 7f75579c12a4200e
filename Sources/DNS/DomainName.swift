import EmailAddresses

/// A domain a person may claim: a host name of at least two labels (RFC 1123 letters, digits and inner hyphens), not
/// an IP address, at most 253 bytes.
public enum DomainName {
    /// `text` without a trailing dot in IDNA's lower-cased ASCII form (``EmailDomain``: ASCII case folded, a Unicode
    /// label as its A-label, a look-alike that would need mapping refused), or nil when it is not such a domain.
    public static func normalized(_ text: String) -> String? {
        guard let name = EmailDomain(text.hasSuffix(".") ? text.dropLast() : Substring(text))?.name else { return nil }
        guard DNSQuery.isValid(name), !name.contains("_") else { return nil }
        let labels = name.split(separator: ".")
        guard labels.count >= 2, let top = labels.last, top.contains(where: { $0.isLetter }) else { return nil }
        guard labels.allSatisfy({ !$0.hasPrefix("-") && !$0.hasSuffix("-") }) else { return nil }
        return name
    }
}
