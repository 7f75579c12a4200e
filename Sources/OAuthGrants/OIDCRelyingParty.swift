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

    /// How the relying party knows an owner (OpenID Connect Core 1.0 section 8): `subject_type`.
    public enum SubjectType: Sendable, Equatable {
        /// The owner's id, the same for every relying party.
        case `public`
        /// A keyed digest of `sector` and the owner's id (section 8.1): the same for every relying party of one sector,
        /// different for any other, so that apps of two sectors cannot tell that one owner uses both.
        /// - Parameter sector: the sector identifier, lower-cased: the one host of the redirect URIs, or the host of the
        ///   party's `sector_identifier_uri`.
        case pairwise(sector: String)

        /// The stored word (`oidc_relying_parties.subject_type`), and discovery's.
        public var word: String {
            switch self {
            case .public: "public"
            case .pairwise: "pairwise"
            }
        }

        /// The pairwise subject type of redirect URIs that all name one host (section 8.1: more hosts need a
        /// `sector_identifier_uri`, ``OIDCSectorIdentifier``); nil when they name none or more than one.
        public static func pairwise(redirectURIs: [String]) -> SubjectType? {
            let hosts = Set(redirectURIs.map(host(of:)))
            guard hosts.count == 1, let host = hosts.first, let host, !host.isEmpty else { return nil }
            return .pairwise(sector: host)
        }

        /// The host of an absolute `https` or `http` URI, lower-cased, without user information or port.
        static func host(of uri: String) -> String? {
            guard let schemeEnd = uri.range(of: "://") else { return nil }
            var authority = uri[schemeEnd.upperBound...].prefix { !"/?#".contains($0) }
            if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else { return nil }
                return String(authority[...close]).lowercased()
            }
            return String(authority.prefix { $0 != ":" }).lowercased()
        }
    }

    /// The ID token signing algorithms a relying party may register.
    public enum SigningAlgorithm: String, Sendable, Equatable, CaseIterable {
        /// RSASSA-PKCS1-v1_5 SHA-256: the default, which every relying party verifies.
        case rs256 = "RS256"
        /// Ed25519 (RFC 8037).
        case edDSA = "EdDSA"
        /// ECDSA on P-256 with SHA-256 (RFC 7518 section 3.4).
        case es256 = "ES256"
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
    /// How it knows an owner: `public` or `pairwise`.
    public let subjectType: SubjectType
    /// The mail permissions the relying party may ask for with the scopes `mail.read` and `mail.send`
    /// (`--mail-access`): a sign-in that asked for them, and that the owner consented to, gets an access token for the
    /// mail resource (IMAP and submission `XOAUTH2`/`OAUTHBEARER`) and a refresh token. Nil: its tokens open userinfo
    /// only, and a request for a mail scope is refused.
    public let mailAccess: MailPermissions?

    public init(
        clientID: String, name: String, redirectURIs: [String], postLogoutRedirectURIs: [String] = [],
        backchannelLogoutURI: String? = nil, idTokenAlgorithm: SigningAlgorithm = .rs256, firstParty: Bool = false,
        legacyNoPKCE: Bool = false, signIn: SignInPolicy = .allOwners, subjectType: SubjectType = .public,
        mailAccess: MailPermissions? = nil
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
        self.subjectType = subjectType
        self.mailAccess = mailAccess.flatMap { $0.isEmpty ? nil : $0 }
    }
}
