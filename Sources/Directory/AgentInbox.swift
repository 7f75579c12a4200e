import EmailAddresses

/// The rule that names an agent's inbox: `<username>@<agent inbox domain>`, or, for an inbox an owner made on their
/// own domain, the username itself, which is then the whole address (signup names never hold an `@`).
public enum AgentInbox {
    /// The inbox address of the agent named `username` (lower-case by the username rules) on `domain`.
    public static func address(username: String, domain: String) -> String {
        username.contains("@") ? username : username + "@" + domain
    }

    /// The username an inbox address names, or nil when `address` is not on `domain` (compared as domains are,
    /// ``EmailDomain/key(_:)``).
    public static func username(of address: AddressParts, domain: String) -> String? {
        address.domain == EmailDomain.key(domain) ? address.localPart : nil
    }
}
