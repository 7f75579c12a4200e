import SignInProviders

/// What the web inbox's sign-in page offers Pro users beside the password, and where a provider's session signs out
/// to: plain facts of the sign-in methods' Pro mount (``ProSignInMethods``), which serves the routes themselves.
public struct WebInboxSignInOffer: Sendable {
    /// Whether the page shows the passkey button.
    public var passkeys: Bool
    /// The providers with a button, in configured order.
    public var providers: [SignInProvider]
    /// The end-session URL a provider's session signs out to, by the provider's name (its `_LOGOUT` on); nil for none.
    public var providerLogout: @Sendable (_ provider: String) async -> String?

    /// What the mount of `passkeys` and `providers` offers.
    public init(passkeys: WebInboxPasskeys?, providers: WebInboxProviders?) {
        self.passkeys = passkeys != nil
        self.providers = providers?.buttons ?? []
        let flow = providers?.flow
        providerLogout = { provider in await flow?.endSessionURL(provider: provider) }
    }

    /// No passkey, no provider.
    public static let none = WebInboxSignInOffer(passkeys: nil, providers: nil)
}
