import SecondFactors
import ServerKit

/// The two-step pages (``TwoStepPages``) mounted for Pro users at `/inbox/two-step` (issue 88 item 3), through the Pro
/// users' ``SecondFactorFamily``: in the web inbox's frame and session (the same 404 for anyone but an active Pro
/// user), on the Pro users' store, each change needing a session whose sign-in is recent and not a pasted `tm_pro_`
/// token's (``WebInboxService/freshlySignedIn(_:)``) and on the operator's trail (`pro.mfa_enabled`,
/// `pro.mfa_disabled`, `pro.recovery_codes_renewed`). With `POSTERN_PRO_SECOND_FACTOR=off` the pages are not found.
public struct ProTwoStepPages: Sendable {
    let inbox: WebInboxService

    /// The page.
    public static let path = SecondFactorPaths.proUsers.twoStep

    /// - Parameter inbox: the web inbox whose sessions, frame and Pro users' second factors the pages use.
    public init(inbox: WebInboxService) {
        self.inbox = inbox
    }

    /// Adds `GET /inbox/two-step` and `POST /inbox/two-step/setup|confirm|recovery-codes|disable`.
    public func register(into router: inout ContextRouter) {
        TwoStepPages(ProSignInFamily(inbox: inbox, accounts: nil)).register(into: &router)
    }
}
