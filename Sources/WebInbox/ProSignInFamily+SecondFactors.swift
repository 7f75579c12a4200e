import Audit
import BrowserPages
import HTTP1
import SecondFactors
import ServerKit
import SignInMethods

/// Pro users as their second factors serve them (issue 88 item 3, ``SecondFactorFamily``): the Pro users' store when
/// `POSTERN_PRO_SECOND_FACTOR` is not `off`; the two-step page in the web inbox's frame, changed only with a session
/// whose sign-in is recent and not a pasted `tm_pro_` token's (``WebInboxService/freshlySignedIn(_:)``); the second
/// step after a password, its cookie sealed with the web inbox's own key and carrying what the session will rest on.
extension ProSignInFamily: SecondFactorFamily {
    typealias Pending = ProSecondStepPending

    var secondFactorStore: SecondFactorStore? { inbox.secondFactors }
    var secondFactorPaths: SecondFactorPaths { .proUsers }
    var audit: AuditTrail { inbox.audit }
    var bodyLimit: Int { inbox.configuration.bodyLimit }
    var publicURL: String { inbox.configuration.publicURL }
    var secondStepKey: [UInt8] { inbox.secondStepKey }

    func mayChangeSecondFactor(_ call: Call) async throws -> Bool { try await inbox.freshlySignedIn(call) }

    /// The page in the web inbox's frame (`no-store`, as every page).
    func twoStepPage(_ call: Call, status: HTTPStatus, main: (_ csrfToken: String) -> HTML) -> HTTPResponse {
        HTMLPage.response(status, call.document(TwoStepParts.title, main: main(call.csrfToken), css: ""))
    }

    func secondStepDocument(title: String, main: HTML) -> HTML { BrowserPage.document(title: title, main: main) }

    func slowDown(_ retryAfter: Int64) -> String { "Too many failed sign-ins. Try again in \(retryAfter) seconds." }

    /// The pending sign-in while the token epoch its password found still holds: a password changed (or a factor
    /// turned on) since ends it, as it ends the sessions resting on that epoch.
    func pendingSecondStep(_ fields: [String]) async throws -> ProSecondStepPending? {
        guard let pending = ProSecondStepPending(fields: fields),
            try await inbox.signIns?.access(.proUser(id: pending.account), resting: pending.binding) != nil
        else { return nil }
        return pending
    }

    func openSession(_ pending: ProSecondStepPending, factorJustSetUp: Bool, _ request: HTTPRequest) async throws
        -> [String]?
    {
        var binding = pending.binding
        if factorJustSetUp {
            // Turning it on ended the user's sessions and moved their token epoch past the one their password found;
            // the new session rests on the epoch as it is now.
            guard let now = try await inbox.signIns?.signIn(.secondFactorSetUp(proUserID: pending.account))?.binding
            else { return nil }
            binding = now
        }
        return inbox.sessionCookies(try await inbox.openSession(.proUser(id: pending.account), binding, request))
    }

    func sessionToKeep(_ call: WebInboxProUserCall) -> String? { call.request.cookie(WebInboxService.sessionCookie) }
}

/// A Pro user's password sign-in half done (issue 88 item 3): who, their email, what the session will rest on (their
/// token epoch as the password found it, so a password changed meanwhile ends the session at once) and where it goes
/// next.
struct ProSecondStepPending: PendingSecondStep {
    static let fieldCount = 4

    var account: String
    var email: String
    var binding: WebInboxSessionBinding
    var next: String

    var cookieFields: [String] { [account, email, binding.encoded, next] }
    var firstFactor: String { "password" }
    var refusalActor: String { account }

    init(proUserID: String, email: String, binding: WebInboxSessionBinding, next: String) {
        account = proUserID
        self.email = email
        self.binding = binding
        self.next = next
    }

    /// The pending sign-in a cookie's fields carry (``cookieFields``); nil when the binding does not read.
    init?(fields: [String]) {
        guard let binding = WebInboxSessionBinding(encoded: fields[2]) else { return nil }
        let next = fields[3] == WebInboxService.dashboardPath ? WebInboxService.dashboardPath : "/inbox"
        self.init(proUserID: fields[0], email: fields[1], binding: binding, next: next)
    }
}
