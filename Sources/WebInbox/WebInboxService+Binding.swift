/// What a web-inbox session rests on besides its cookie (the `binding` column), made at sign-in and checked on every
/// request, so that what ends the credential it was opened with ends the session too: a password reset (the account's
/// or Pro user's token epoch moves on), revoking the `tm_pro_` token pasted to sign in, or the linked address coming
/// to another account.
extension WebInboxService {
    /// The binding of a session `principal` opens: the account's or Pro user's token epoch now (`epoch:N`), or the API
    /// token it signed in with (`token:<id>`), or the account behind a linked address (`account:<id>`). Nil when there
    /// is nothing to rest on (the account or the linked mailbox is gone): no session is opened.
    func binding(of principal: WebInboxPrincipal, apiTokenID: String? = nil) async throws -> String? {
        switch principal {
        case .allMail:
            // The operator's view rests on the link alone (single use, ten minutes) and the session's lifetime.
            return "all"
        case .account(let id):
            guard let accounts else { return nil }
            return try await accounts.accountTokenEpoch(id: id).map { "epoch:\($0)" }
        case .proUser(let id):
            guard let accounts else { return nil }
            if let apiTokenID { return "token:" + apiTokenID }
            return try await accounts.proUserTokenEpoch(id: id).map { "epoch:\($0)" }
        case .link(let address):
            guard let accounts else { return nil }
            return try await accounts.mailboxBinding(address: address)
        }
    }

    /// Whether session `principal`'s `binding` still holds.
    func bindingHolds(_ principal: WebInboxPrincipal, _ binding: String) async throws -> Bool {
        if case .proUser(let id) = principal, binding.hasPrefix("token:") {
            return try await accounts?.proUserID(ofLiveToken: String(binding.dropFirst("token:".count))) == id
        }
        return try await self.binding(of: principal) == binding
    }
}
