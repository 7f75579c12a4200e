/// What a web-inbox session rests on besides its cookie (``WebInboxSessionBinding``), made at sign-in and checked on
/// every request.
extension WebInboxService {
    /// The binding of a session `principal` opens: the account's or Pro user's token epoch now, or the API token it
    /// signed in with, or the account behind a linked address. Nil when there is nothing to rest on (the account or the
    /// linked mailbox is gone): no session is opened.
    func binding(of principal: WebInboxPrincipal, apiTokenID: String? = nil) async throws -> WebInboxSessionBinding? {
        switch principal {
        case .allMail:
            return .allMail
        case .account(let id):
            guard let accounts else { return nil }
            return try await accounts.accountTokenEpoch(id: id).map(WebInboxSessionBinding.tokenEpoch)
        case .proUser(let id):
            guard let accounts else { return nil }
            if let apiTokenID { return .apiToken(id: apiTokenID) }
            return try await accounts.proUserTokenEpoch(id: id).map(WebInboxSessionBinding.tokenEpoch)
        case .link(let address):
            guard let accounts else { return nil }
            return try await accounts.mailboxBinding(address: address)
        }
    }

    /// Whether session `principal`'s `binding` still holds.
    func bindingHolds(_ principal: WebInboxPrincipal, _ binding: WebInboxSessionBinding) async throws -> Bool {
        if case .proUser(let id) = principal, case .apiToken(let tokenID) = binding {
            return try await accounts?.proUserID(ofLiveToken: tokenID) == id
        }
        return try await self.binding(of: principal) == binding
    }
}
