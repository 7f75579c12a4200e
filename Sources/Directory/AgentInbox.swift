/// The rule that names an agent's inbox: `<username>@<agent inbox domain>`.
public enum AgentInbox {
    /// The inbox address of the agent named `username` (lower-case by the username rules) on `domain`.
    public static func address(username: String, domain: String) -> String {
        username + "@" + domain
    }

    /// The username an inbox address names, or nil when `address` is not on `domain` (compared in lower case).
    public static func username(of address: AddressParts, domain: String) -> String? {
        address.domain == domain.lowercased() ? address.localPart : nil
    }
}
