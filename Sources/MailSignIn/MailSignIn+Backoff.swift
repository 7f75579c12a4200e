import AuthCrypto
import Base64Coding
import Base64Coding
import BrowserPages
import ClientAddress
import EmailAddresses

/// The sign-in backoff's keys of Mail.td's credentials, in one place: every door that takes one (IMAP, POP3, the web
/// inbox's sign-in, the Pro password's removal and the provider-link question) counts on these, so that none is a way
/// around the others' backoff.
extension MailSignIn {
    /// The backoff's namespace of Mail.td's credentials (``SignInThrottle``): the web inbox's, where they were first
    /// counted, so that counters kept before this owner still count.
    static let throttleNamespace = "inbox"

    /// The keys of a Mail.td account's password (or a `tm_pro_` token, or an owner's access token, named with
    /// `address`) from `client`.
    public static func accountKeys(address: String, client: ClientAddressKey) -> SignInThrottle.Keys {
        SignInThrottle.keys(name: "account\u{0}" + EmailAddress.key(address), client: client, namespace: throttleNamespace)
    }

    /// The keys of a Pro user's password from `client`.
    public static func proUserKeys(email: String, client: ClientAddressKey) -> SignInThrottle.Keys {
        SignInThrottle.keys(name: "pro\u{0}" + EmailAddress.key(email), client: client, namespace: throttleNamespace)
    }

    /// The keys of a pasted `tm_pro_` API token from `client`, named by its digest (never the token).
    public static func apiTokenKeys(_ token: String, client: ClientAddressKey) -> SignInThrottle.Keys {
        SignInThrottle.keys(
            name: "token\u{0}" + Base64URL.encode(SHA256.hash(Array(token.utf8))), client: client,
            namespace: throttleNamespace)
    }
}
