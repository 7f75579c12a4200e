/// One identity provider people may sign in with (issue 54), as the operator configured it: an OpenID Connect
/// provider found by its issuer, or GitHub (whose OAuth has no id_token), with its client credentials and the rules of
/// who it may sign in or sign up. Read and checked by ``SignInProvidersConfiguration``.
public struct SignInProvider: Sendable, Equatable {
    /// How Postern talks to the provider.
    public enum Kind: Sendable, Equatable {
        /// Any OpenID Connect provider: discovery at `issuer` + `/.well-known/openid-configuration`, whose `issuer`
        /// must equal this text exactly (OpenID Connect Discovery section 4.3), and a signed id_token.
        case oidc(issuer: String)
        /// GitHub or GitHub Enterprise: its OAuth endpoints under `webURL` (`/login/oauth/authorize`,
        /// `/login/oauth/access_token`) and its REST API under `apiURL` (`/user`, `/user/emails`). Both without a
        /// trailing slash.
        case github(webURL: String, apiURL: String)
    }

    /// The account families a provider signs people into.
    public enum Surface: String, Sendable, Hashable, CaseIterable {
        /// Owners (`/owner/sign-in`, and the sign-in on the way through `/oauth/authorize`).
        case owners
        /// Mail.td Pro users (`/inbox/sign-in`, the Pro dashboard).
        case pro
    }

    /// The client secret, never printed: its description is redacted, so a provider can be logged.
    public struct ClientSecret: Sendable, Equatable, CustomStringConvertible {
        /// The secret as the provider issued it.
        public let value: String

        /// Wraps `value`.
        public init(_ value: String) { self.value = value }

        /// `redacted`, never the secret.
        public var description: String { "redacted" }
    }

    /// The provider's name in `POSTERN_OIDC_PROVIDERS`: 1 to 32 lower-case letters and digits. Its keys are
    /// `POSTERN_OIDC_<NAME>_...` with the name upper-cased, and it names the provider in URLs and the audit trail.
    public var name: String
    /// OpenID Connect or GitHub, and where the provider is.
    public var kind: Kind
    /// The client id the provider issued to this server.
    public var clientID: String
    /// The client secret the provider issued to this server.
    public var clientSecret: ClientSecret
    /// The words on the provider's button ("Sign in with <displayName>").
    public var displayName: String
    /// The scopes asked for: `openid email profile` by default for OpenID Connect (which must include `openid`),
    /// `read:user user:email` for GitHub.
    public var scopes: [String]
    /// Where the provider's button is shown and whose accounts it may sign in: owners, Pro users or both.
    public var surfaces: Set<Surface>
    /// Whether an identity nobody has linked yet may create an account (with a verified email). Default false: only
    /// people who linked the provider from their settings sign in with it.
    public var allowSignUp: Bool
    /// Whether the provider's verified email is trusted to sign into the local account that has that email without its
    /// password. Default false; refused at start with open owner sign-up (anyone could have registered that address).
    public var trustEmail: Bool
    /// The email domains (lower-cased) whose verified addresses may sign up; empty: any domain.
    public var allowedDomains: [String]
    /// Whether discovery, JWKS, token and user calls may reach private and loopback addresses (an in-house or test
    /// provider). Default false: they go through the outbound address policy like every other outbound call.
    public var allowPrivateNetwork: Bool
    /// Whether signing out of a session this provider opened also sends the browser to the provider's
    /// `end_session_endpoint` (OpenID Connect RP-Initiated Logout), so that the person is signed out there too.
    /// Default false: sign-out ends Postern's session only. OpenID Connect providers only.
    public var logout: Bool

    /// Creates a provider; ``SignInProvidersConfiguration`` reads and checks one from the operator's keys.
    public init(
        name: String, kind: Kind, clientID: String, clientSecret: ClientSecret, displayName: String,
        scopes: [String], surfaces: Set<Surface> = Set(Surface.allCases), allowSignUp: Bool = false,
        trustEmail: Bool = false, allowedDomains: [String] = [], allowPrivateNetwork: Bool = false,
        logout: Bool = false
    ) {
        self.name = name
        self.kind = kind
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.displayName = displayName
        self.scopes = scopes
        self.surfaces = surfaces
        self.allowSignUp = allowSignUp
        self.trustEmail = trustEmail
        self.allowedDomains = allowedDomains
        self.allowPrivateNetwork = allowPrivateNetwork
        self.logout = logout
    }

    /// The scope of this provider's keys: `POSTERN_OIDC_<NAME>`, the name upper-cased.
    public var keyScope: String { "POSTERN_OIDC_" + name.uppercased() }

    /// The whole name of this provider's key `suffix`, e.g. `POSTERN_OIDC_GOOGLE_TRUST_EMAIL` for `TRUST_EMAIL`.
    public func key(_ suffix: String) -> String { keyScope + "_" + suffix }
}
