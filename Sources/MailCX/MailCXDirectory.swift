import Directory
import EmailAddresses
import MailboxAccounts

/// Who mail.cx's domains take mail for: every address of them with a valid local part (Mail.td's rules, which
/// `/config` publishes), an implicit mailbox held by nobody, with the surface's quota.
public struct MailCXDirectory: AccountDirectory {
    let domains: Set<String>
    let quota: Int64

    /// The directory of `configuration`'s domains.
    public init(configuration: MailCXConfiguration) {
        self.domains = Set(configuration.domains)
        self.quota = configuration.quota
    }

    /// Whether `domain` is one of the surface's.
    public func serves(domain: String) -> Bool {
        domains.contains(EmailDomain.key(domain))
    }

    /// Local for any valid address of the surface's domains; unknown for an invalid local part there; foreign
    /// elsewhere.
    public func resolve(_ address: String) async throws -> AddressResolution {
        guard let parsed = EmailAddress(address), serves(domain: parsed.domain.name) else { return .foreign }
        guard let mailbox = MailboxAddress(address) else { return .unknown }
        return .local(Recipient(address: mailbox.description, quota: quota))
    }
}
