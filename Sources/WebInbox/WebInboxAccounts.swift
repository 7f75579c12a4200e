/// The Mail.td side of the web inbox, a port the composition root fills with the mailbox surface: whether an account's
/// or a Pro user's credentials are right, and which addresses each may read. Its tables stay behind that surface.
public protocol WebInboxAccounts: Sendable {
    /// The id and address of the account `address` and `password` open (v1 and v2 accounts); nil when refused.
    func signInAccount(address: String, password: String) async throws -> (id: String, address: String)?
    /// The id of the active Pro user whose email and password these are; nil when refused.
    func signInProUser(email: String, password: String) async throws -> String?
    /// The id of the active Pro user a live `tm_pro_` API token belongs to; nil otherwise.
    func proUser(apiToken: String) async throws -> String?
    /// The address of account `id` while it exists.
    func accountAddress(id: String) async throws -> String?
    /// The id of the account at `address`, nil when there is none.
    func accountID(address: String) async throws -> String?
    /// The addresses of the accounts of Pro user `id` while the user is active.
    func accountAddresses(proUserID id: String) async throws -> [String]
    /// The email of Pro user `id` (shown as who reads) while the user exists and is active; nil otherwise.
    func activeProUserEmail(_ id: String) async throws -> String?
    /// Where Pro user `id`'s SMTP sandbox keeps its captures, nil when it has none yet (asked only while the user is
    /// active).
    func sandboxAddress(proUserID id: String) async throws -> String?
}
