import Audit
import BrowserPages
import ClientAddress
import HTTP1
import Passkeys
import ServerKit
import SignInProviders

/// A family of accounts that signs in with passkeys and providers (issue 67 item 1): owners at `/owner`, Pro users at
/// `/inbox`. The port ``SignInMethodsController`` is written once over: who the holder is, their ways in, how a session
/// starts, the audit actor, the frame and the notice, the password's check and removal. Each family fills it with its
/// own tables, sessions and pages, as ``CustomDomains`` serves every surface through its port.
public protocol SignInFamily: Sendable {
    /// What a signed-in page of the family gets: the request and who asks.
    associatedtype Call: SignInCall

    /// The routes' paths, cookie names and words of this family.
    var paths: SignInPaths { get }
    /// How this family's people appear on the audit trail.
    var actor: SignInAuditActor { get }
    /// The browser pages' one middleware (page budget per client, 429 and 500 pages).
    var pages: PageRoutes { get }
    /// The forms of the family's pre-session pages: their CSRF tokens, the pending link's seal, the password question.
    var forms: BrowserForms { get }
    /// What a form with a stale CSRF token is told.
    var csrfMessage: String { get }
    /// The passkey sign-in's backoff (``SignInThrottle``, in ``SignInPaths/passkeyThrottleNamespace``).
    var passkeyThrottle: SignInThrottle { get }
    /// Unix seconds.
    func now() -> Int64

    // MARK: Who the holder is

    /// The passkeys' holder of `account`.
    func passkeyHolder(_ account: String) -> PasskeyHolder
    /// The account of this family a passkey belongs to; nil for another family's.
    func account(of holder: PasskeyHolder) -> String?
    /// Whether `account` has a password.
    func hasPassword(_ account: String) async throws -> Bool
    /// The signed-in account of `request`, for a provider link begun at the pre-session start; nil when signed out.
    func signedInAccount(_ request: HTTPRequest) async throws -> String?
    /// When the account last proved itself on `request`'s session (Unix seconds): the sign-in that opened it (a
    /// password, a passkey, a provider; for a Pro user also a `tm_pro_` token); nil when there is none (issue 66
    /// item 4).
    func lastProof(_ request: HTTPRequest) async throws -> Int64?
    /// How recent that proof must be for a lasting change (``SignInMethodsController/hasFreshProof(_:)``).
    var freshProof: FreshProof { get }

    // MARK: Pages, the frame and the notice

    /// A signed-in page's route of `area`: the family's session and CSRF checks, then `handler`.
    func signedInRoute(_ area: SignInArea, _ handler: @escaping @Sendable (Call) async throws -> HTTPResponse)
        -> ContextRouteHandler
    /// The family's sign-in page with `status` and `error` (a refused passkey; a refused provider start).
    func signInPage(_ status: HTTPStatus, _ request: HTTPRequest, error: String) -> HTTPResponse
    /// A refused provider start at the pre-session door: the sign-in page with `words`, or a message page.
    func startRefused(_ status: HTTPStatus, _ request: HTTPRequest, words: String) -> HTTPResponse
    /// What a change on "Sign-in methods" answers: `notice` on the family's page.
    func notice(_ notice: SignInNotice, _ call: Call) async throws -> HTTPResponse
    /// What a link asked for from "Sign-in methods" answers once the provider came back (no ``Call``: the callback is
    /// cross-site); `clear` drops the pre-session cookie.
    func linked(_ outcome: SignInLinkOutcome, _ request: HTTPRequest, clear: String) async throws -> HTTPResponse
    /// The `Set-Cookie` value of a cookie that comes back with a provider's cross-site redirect (`SameSite=Lax`).
    func laxCookie(_ name: String, _ value: String, maxAge: Int64, path: String) -> String
    /// Where a sign-in comes back to: `next` when the family honours it, else its home.
    func returnPath(_ next: String?) -> String
    /// Counts a sign-in's result (`success`, `refused`, `slowed`) where the family counts them.
    func countSignIn(_ result: String)

    // MARK: How a session starts

    /// A new session of `account`, signed in by `method`, with `setCookies` sent too; nil when the account may not
    /// sign in (gone, suspended).
    func startSession(_ account: String, _ request: HTTPRequest, by method: SignInMethod, setCookies: [String])
        async throws -> SignInSession?

    // MARK: The password

    /// Removes the signed-in account's password once `password` proves it, under the password sign-in's backoff.
    func removePassword(_ call: Call, password: String) async throws -> PasswordCheck
    /// Whether `password` is `account`'s (who has `email`), under the password sign-in's backoff.
    func checkPassword(account: String, email: String, password: String, client: ClientAddressKey) async throws
        -> PasswordCheck

    // MARK: Accounts a provider's identity may reach

    /// An email as this family stores it; nil when the text is not an address.
    func normalizedEmail(_ email: String) -> String?
    /// The account holding `email`, for the linking rules; nil when nobody has it.
    func linkCandidate(email: String) async throws -> ProviderLinking.Candidate?
    /// A new account without a password for the (verified) `email`; nil when it is taken or not an address.
    func createWithoutPassword(email: String) async throws -> String?
    /// Removes account `id` if it has no password: the undoing of a sign-up whose identity was linked elsewhere first.
    func removeWithoutPassword(id: String) async throws
    /// Records that `id`'s email is proven, when it is still `email`.
    func markEmailVerified(id: String, email: String) async throws
}

/// What a family's signed-in page gives the controller.
public protocol SignInCall: Sendable {
    /// The request.
    var request: HTTPRequest { get }
    /// Its path parameters.
    var parameters: RouteParameters { get }
    /// The signed-in account's id.
    var account: String { get }
    /// The account's email, as its pages show it.
    var label: String { get }
    /// The client's address, for the audit trail.
    var client: String? { get }
}

/// Which of the controller's signed-in pages a route serves (a family may title them apart).
public enum SignInArea: Sendable {
    case passkeys
    case providers
    /// The second factor's page (the two-step pages of SecondFactors).
    case twoStep
}

/// How a session was earned.
public enum SignInMethod: Sendable {
    /// A passkey verified now.
    case passkey
    /// A provider's sign-in, coming back to `returnTo`; `password` when the account's password proved the link first
    /// (the link page's question), which a second factor then guards as it guards a password sign-in.
    case provider(SignInProvider, returnTo: String, password: Bool = false)
}

/// A session opened: the answer that carries it, and what the sign-in's audit record names as its target.
public struct SignInSession: Sendable {
    public var response: HTTPResponse
    public var auditTarget: String
    /// False when no session opened yet: the answer sends the browser to a second factor (issue 88), whose step
    /// counts and records the sign-in once it passes.
    public var opened: Bool

    /// Memberwise.
    public init(response: HTTPResponse, auditTarget: String, opened: Bool = true) {
        self.response = response
        self.auditTarget = auditTarget
        self.opened = opened
    }
}

/// A password checked under the password sign-in's backoff.
public enum PasswordCheck: Equatable, Sendable {
    case passed
    case failed
    /// Not tried: the backoff asks to wait this many seconds.
    case slowed(Int64)
}

/// What a change on "Sign-in methods" came to, as the family's page tells it.
public enum SignInNotice: Equatable, Sendable {
    case passkeyAdded
    /// A registration refused (one notice whatever failed).
    case passkeyRefused
    /// A registration the browser refused because the device already holds a passkey for this account
    /// (`InvalidStateError`; the form's `failure` field, ``PasskeyPageParts/alreadyRegisteredFailure``).
    case passkeyAlreadyOnDevice
    case invalidPasskeyName
    case unknownPasskey
    case passkeyRenamed
    case passkeyRemoved
    case passwordRemoved
    /// The password typed to confirm a removal is not the account's.
    case wrongPassword
    /// A removal not tried: too many wrong passwords.
    case slowed(Int64)
    /// The change would leave no way in (``SignInWays``).
    case lastWay
    case notLinked
    case unlinked
    /// A link refused before the provider was asked: the sentence.
    case linkNotStarted(String)
    /// A way in not added: the session's sign-in is older than ``SignInFamily/freshProof``
    /// (``SignInMessage/proofNeeded``).
    case proofNeeded
}

/// The paths, cookies and words of one family's sign-in methods.
public struct SignInPaths: Sendable {
    /// The passkey sign-in (`<passkeySignIn>/options` answers its options).
    public var passkeySignIn: String
    /// The passkey forms' script.
    public var passkeyScript: PageScript
    /// The signed-in passkeys' base: `<passkeys>/options`, `<passkeys>`, `<passkeys>/{id}/rename|remove`.
    public var passkeys: String
    /// The password's removal.
    public var passwordRemoval: String
    /// The sign-in backoff's namespace of passkey sign-ins.
    public var passkeyThrottleNamespace: String
    /// Where a provider's button posts.
    public var providerStart: String
    /// Whether the start names the family (`surface`) and may begin a link (`intent=link`, with a session): the
    /// shared `/oidc/start`.
    public var startNamesSurface: Bool
    /// A signed-in page's own start of a link (`provider`); nil: links begin at ``providerStart``.
    public var linkStart: String?
    /// Where a link begun without a session sends the browser.
    public var signInForLink: String
    /// The password question's page.
    public var linkQuestion: String
    /// The sealed pending link's cookie (sent to ``linkQuestion`` only) and what it is sealed for.
    public var pendingCookie: String
    public var pendingPurpose: String
    /// What the question calls the account (`An owner account`).
    public var accountWords: String
    /// Unlinking a provider.
    public var unlink: String
    /// Where a refused provider sign-in sends the browser back to.
    public var signIn: String
    /// The identities' family.
    public var surface: SignInProvider.Surface

    /// Memberwise.
    public init(
        passkeySignIn: String, passkeyScript: PageScript, passkeys: String, passwordRemoval: String,
        passkeyThrottleNamespace: String, providerStart: String, startNamesSurface: Bool, linkStart: String?,
        signInForLink: String, linkQuestion: String, pendingCookie: String, pendingPurpose: String,
        accountWords: String, unlink: String, signIn: String, surface: SignInProvider.Surface
    ) {
        self.passkeySignIn = passkeySignIn
        self.passkeyScript = passkeyScript
        self.passkeys = passkeys
        self.passwordRemoval = passwordRemoval
        self.passkeyThrottleNamespace = passkeyThrottleNamespace
        self.providerStart = providerStart
        self.startNamesSurface = startNamesSurface
        self.linkStart = linkStart
        self.signInForLink = signInForLink
        self.linkQuestion = linkQuestion
        self.pendingCookie = pendingCookie
        self.pendingPurpose = pendingPurpose
        self.accountWords = accountWords
        self.unlink = unlink
        self.signIn = signIn
        self.surface = surface
    }
}

/// How a family's people appear on the audit trail.
public struct SignInAuditActor: Sendable {
    public var kind: AuditActorKind
    public var signIn: AuditAction
    public var signInFailed: AuditAction
    public var passwordRemoved: AuditAction
    /// The second factor's changes (issue 88 item 3): turned on, turned off, new recovery codes, one used.
    public var secondFactorOn: AuditAction
    public var secondFactorOff: AuditAction
    public var recoveryCodesRenewed: AuditAction
    public var recoveryCodeUsed: AuditAction
    /// Whether an event of the account is on its own trail (an owner's `/owner` page shows it).
    public var ownsTrail: Bool

    /// Owners: `owner.*`, on their own trail.
    public static let owner = SignInAuditActor(
        kind: .owner, signIn: .ownerSignIn, signInFailed: .ownerSignInFailed, passwordRemoved: .ownerPasswordRemoved,
        secondFactorOn: .ownerSecondFactorOn, secondFactorOff: .ownerSecondFactorOff,
        recoveryCodesRenewed: .ownerRecoveryCodesRenewed, recoveryCodeUsed: .ownerRecoveryCodeUsed,
        ownsTrail: true)
    /// Pro users: `pro.*`, on the operator's trail.
    public static let pro = SignInAuditActor(
        kind: .pro, signIn: .proSignIn, signInFailed: .proSignInFailed, passwordRemoved: .proPasswordRemoved,
        secondFactorOn: .proSecondFactorOn, secondFactorOff: .proSecondFactorOff,
        recoveryCodesRenewed: .proRecoveryCodesRenewed, recoveryCodeUsed: .proRecoveryCodeUsed,
        ownsTrail: false)

    /// An event of `account`'s own doing.
    public func event(
        _ account: String, _ action: AuditAction, target: String, client: String?, details: String?, time: Int64
    ) -> AuditEvent {
        AuditEvent(
            time: time, actorKind: kind, actorID: account, ownerID: ownsTrail ? account : nil, action: action,
            target: target, clientAddress: client, details: details)
    }
}
