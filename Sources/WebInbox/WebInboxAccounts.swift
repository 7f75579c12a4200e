/// The Mail.td side of the web inbox, a port the composition root fills with the mailbox surface: whether an account's
/// or a Pro user's credentials are right, and which addresses each may read. Its tables stay behind that surface.
public protocol WebInboxAccounts: Sendable {
    /// The id and address of the account `address` and `password` open (v1 and v2 accounts); nil when refused.
    func signInAccount(address: String, password: String) async throws -> (id: String, address: String)?
    /// The id of the active Pro user whose email and password these are; nil when refused.
    func signInProUser(email: String, password: String) async throws -> String?
    /// The ids of a live `tm_pro_` API token and of its active Pro user; nil otherwise.
    func proToken(apiToken: String) async throws -> (tokenID: String, userID: String)?
    /// The active Pro user behind the unrevoked API token `tokenID`; nil once it was revoked or the user suspended.
    func proUserID(ofLiveToken tokenID: String) async throws -> String?
    /// The token epoch of account `id` (a password reset moves it on); nil once the account is deleted.
    func accountTokenEpoch(id: String) async throws -> Int64?
    /// The token epoch of Pro user `id` (a password change moves it on); nil once the user is gone.
    func proUserTokenEpoch(id: String) async throws -> Int64?
    /// The address of account `id` while it exists.
    func accountAddress(id: String) async throws -> String?
    /// Which mailbox `address` is now: ``WebInboxSessionBinding/account(id:)`` of the account (an agent inbox or a
    /// Mail.td account) that has it, or of none for an address only a custom domain's catch-all takes,
    /// ``WebInboxSessionBinding/catchAll`` for the SMTP catch-all's mailbox; nil when no local mailbox has it.
    func mailboxBinding(address: String) async throws -> WebInboxSessionBinding?
    /// The addresses of the accounts of Pro user `id` while the user is active.
    func accountAddresses(proUserID id: String) async throws -> [String]
    /// The email of Pro user `id` (shown as who reads) while the user exists and is active; nil otherwise.
    func activeProUserEmail(_ id: String) async throws -> String?
    /// Where Pro user `id`'s SMTP sandbox keeps its captures, nil when it has none yet (asked only while the user is
    /// active).
    func sandboxAddress(proUserID id: String) async throws -> String?
}
