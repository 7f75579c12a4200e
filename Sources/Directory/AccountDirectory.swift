/// The port through which a surface says which addresses are its accounts: mailbox accounts on the mailbox
/// domains, agent inboxes on the agent domain. Each surface implements it over its own tables; ``LocalDirectory``
/// composes them, so that nothing else reads another surface's tables.
public protocol AccountDirectory: Sendable {
    /// Whether `domain` (lower-cased) is one of the domains this directory serves.
    func serves(domain: String) -> Bool

    /// Resolves `address` (any case, no angle brackets): ``AddressResolution/foreign`` when its domain is not
    /// one this directory serves.
    /// - Throws: storage errors when the accounts cannot be read.
    func resolve(_ address: String) async throws -> AddressResolution
}
