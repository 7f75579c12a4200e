import Directory

/// An operator's confidential client that is an OpenID relying party (`postern oauth client create --redirect-uri`,
/// migration 0075): where it may send an owner back, how its ID tokens are signed, who may sign in to it, and whether its
/// tokens may reach the owner's mail (migration 0079).
public struct OIDCRelyingParty: Sendable, Equatable {
    /// Who may sign in to the relying party.
    public enum SignInPolicy: Sendable, Equatable {
        /// Every owner.
        case allOwners
        /// These owners only (owner ids).
        case listed([String])
        /// Owners whose session was proved by a second factor. Until owners have TOTP (issue 88 item 3) only a passkey
        /// sign-in (possession and user verification) is one: a password session is refused.
        case secondFactor

        /// The stored word (`oidc_relying_parties.sign_in`).
        public var word: String {
            switch self {
            case .allOwners: "all"
            case .listed: "listed"
            case .secondFactor: "second_factor"
            }
        }
    }

    /// The ID token signing algorithms a relying party may register.
    public enum SigningAlgorithm: String, Sendable, Equatable, CaseIterable {
        /// RSASSA-PKCS1-v1_5 SHA-256: the default, which every relying party verifies.
        case rs256 = "RS256"
        /// Ed25519 (RFC 8037).
        case edDSA = "EdDSA"
    }

    /// The confidential client's id.
    public let clientID: String
    /// Its name (shown on the consent page).
    public let name: String
    /// The redirect URIs, compared byte for byte.
    public let redirectURIs: [String]
    /// Where RP-initiated logout may send the browser afterwards.
    public let postLogoutRedirectURIs: [String]
    /// Where logout tokens are POSTed (OpenID Back-Channel Logout 1.0); nil: none.
    public let backchannelLogoutURI: String?
    /// `id_token_signed_response_alg`.
    public let idTokenAlgorithm: SigningAlgorithm
    /// The operator's own app: the consent page is skipped.
    public let firstParty: Bool
    /// A legacy confidential client (Roundcube 1.6) that sends no PKCE: the only clients that may omit it.
    public let legacyNoPKCE: Bool
    /// Who may sign in.
    public let signIn: SignInPolicy
    /// The mail permissions the relying party may ask for with the scopes `mail.read` and `mail.send`
    /// (`--mail-access`): a sign-in that asked for them, and that the owner consented to, gets an access token for the
    /// mail resource (IMAP and submission `XOAUTH2`/`OAUTHBEARER`) and a refresh token. Nil: its tokens open userinfo
    /// only, and a request for a mail scope is refused.
    public let mailAccess: MailPermissions?

    public init(
        clientID: String, name: String, redirectURIs: [String], postLogoutRedirectURIs: [String] = [],
        backchannelLogoutURI: String? = nil, idTokenAlgorithm: SigningAlgorithm = .rs256, firstParty: Bool = false,
        legacyNoPKCE: Bool = false, signIn: SignInPolicy = .allOwners, mailAccess: MailPermissions? = nil
    ) {
        self.clientID = clientID
        self.name = name
        self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.backchannelLogoutURI = backchannelLogoutURI
        self.idTokenAlgorithm = idTokenAlgorithm
        self.firstParty = firstParty
        self.legacyNoPKCE = legacyNoPKCE
        self.signIn = signIn
        self.mailAccess = mailAccess.flatMap { $0.isEmpty ? nil : $0 }
    }
}
