import Audit
import HTTP1
import ServerKit
import SignInMethods
import TOTP

/// A family of people who sign in (owners, Pro users) as its second factors serve it (issue 88 item 3): the port that
/// ``TwoStepPages`` (the factor seen and changed) and ``SecondStep`` (the code after a first factor) are written once
/// over, on top of the family's ``SignInFamily`` (its signed-in route, pre-session forms, backoff, clock, counter).
public protocol SecondFactorFamily: SignInFamily {
    /// A sign-in half done, as the second step's cookie carries it and the family reads it back.
    associatedtype Pending: PendingSecondStep

    /// The family's second factors; nil when they are off (neither the pages nor the second step are served).
    var secondFactorStore: SecondFactorStore? { get }
    /// The second factors' paths, cookie and backoff namespace.
    var secondFactorPaths: SecondFactorPaths { get }
    /// Where changes, sign-ins and refusals are recorded.
    var audit: AuditTrail { get }
    /// The largest form body the pages read, in bytes.
    var bodyLimit: Int { get }
    /// The server's public URL: its host names the codes in authenticator apps (``SecondStepCookie/issuer(publicURL:)``).
    var publicURL: String { get }
    /// The key the pending second step's cookie is sealed with.
    var secondStepKey: [UInt8] { get }

    /// Whether `call`'s session was signed in recently enough to change the factor (and, for a Pro user, not by a
    /// pasted token).
    func mayChangeSecondFactor(_ call: Call) async throws -> Bool
    /// A two-step page of `call` in the family's signed-in frame (`no-store`), `main` given the CSRF token its forms
    /// carry.
    func twoStepPage(_ call: Call, status: HTTPStatus, main: (_ csrfToken: String) -> HTML) -> HTTPResponse
    /// A page of the second step (before any session) in the family's frame.
    func secondStepDocument(title: String, main: HTML) -> HTML
    /// What the backoff's refusal says, `retryAfter` seconds to wait.
    func slowDown(_ retryAfter: Int64) -> String

    /// The pending sign-in of a cookie's fields (``PendingSecondStep/cookieFields``, checked intact); nil when its
    /// person is gone.
    /// - Throws: storage errors.
    func pendingSecondStep(_ fields: [String]) async throws -> Pending?
    /// Opens the session of `pending`, passed its second step: the `Set-Cookie` values that carry it; nil when it can no
    /// longer open (`factorJustSetUp`: the factor was turned on at this step, which ended what the first factor's
    /// session would have rested on, and the person is gone since).
    /// - Throws: storage errors.
    func openSession(_ pending: Pending, factorJustSetUp: Bool, _ request: HTTPRequest) async throws -> [String]?
    /// The session `call` came with, which turning the factor on keeps while it ends the person's others.
    func sessionToKeep(_ call: Call) -> String?
}

/// A sign-in half done (issue 88 item 3): the person proved a first factor and is asked for a code before their
/// session opens. The family's fields ride ``SecondStepCookie``.
public protocol PendingSecondStep: Sendable {
    /// How many fields the cookie carries.
    static var fieldCount: Int { get }
    /// The cookie's fields: who first (none may hold a newline).
    var cookieFields: [String] { get }
    /// The family's id of who signs in.
    var account: String { get }
    /// Their email: the backoff's name, the authenticator's account, the trail's target.
    var email: String { get }
    /// Where the session goes once opened (a local path).
    var next: String { get }
    /// The first factor, as the sign-in's trail names it (`password`, `provider`).
    var firstFactor: String { get }
    /// Who a refused code names on the trail as its actor: an owner's email (as their password's refusals do), a
    /// Pro user's id.
    var refusalActor: String { get }
}

/// Where a family's second factors live: its page, its second step, and that step's cookie and backoff. With
/// ``SecondFactorTables``, the only place they are written.
public struct SecondFactorPaths: Sendable, Equatable {
    /// The signed-in page of the factor.
    public let twoStep: String
    /// The second step of a sign-in.
    public let secondStep: String
    /// The cookie of a pending second step, sent to ``secondStep`` only.
    public let cookie: String
    /// What the cookie is sealed for (no other cookie of the key opens as it).
    public let purpose: String
    /// The sign-in backoff's namespace of second-step codes.
    public let throttleNamespace: String

    /// Owners: `/owner/two-step`, `/owner/sign-in/second-step`.
    public static let owners = SecondFactorPaths(
        twoStep: "/owner/two-step", secondStep: "/owner/sign-in/second-step", cookie: "postern_second_step",
        purpose: "owner second step", throttleNamespace: "owner-second-factor")

    /// Mail.td's Pro users in the web inbox: `/inbox/two-step`, `/inbox/sign-in/second-step`.
    public static let proUsers = SecondFactorPaths(
        twoStep: "/inbox/two-step", secondStep: "/inbox/sign-in/second-step", cookie: "postern_inbox_second_step",
        purpose: "pro second step", throttleNamespace: "inbox-second-factor")
}

extension SecondFactorFamily {
    /// `action` of `account` on the trail, as the family's actor records its own doing.
    func record(_ account: String, _ action: AuditAction, target: String, client: String?, details: String? = nil)
        async
    {
        await audit.record {
            actor.event(account, action, target: target, client: client, details: details, time: $0)
        }
    }

    /// The `otpauth://` URI of `secret` for the person with `email`: the issuer is this server's host.
    public func otpAuthURI(email: String, _ secret: [UInt8]) -> OTPAuthURI {
        OTPAuthURI(
            issuer: SecondStepCookie.issuer(publicURL: publicURL), account: email, secret: secret,
            totp: secondFactorStore?.totp ?? TOTP())
    }
}
