/// A domain a person may claim: a host name of at least two labels (RFC 1123 letters, digits and inner hyphens), not
/// an IP address, at most 253 bytes.
public enum DomainName {
    /// `text` lower-cased without a trailing dot, or nil when it is not such a domain.
    public static func normalized(_ text: String) -> String? {
        var name = text.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard DNSQuery.isValid(name), !name.contains("_") else { return nil }
        let labels = name.split(separator: ".")
        guard labels.count >= 2, let top = labels.last, top.contains(where: { $0.isLetter }) else { return nil }
        guard labels.allSatisfy({ !$0.hasPrefix("-") && !$0.hasSuffix("-") }) else { return nil }
        return name
    }
}
