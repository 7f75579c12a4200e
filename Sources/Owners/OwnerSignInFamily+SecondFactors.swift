import Audit
import HTTP1
import SecondFactors
import ServerKit
import SignInMethods

/// Owners as their second factors serve them (issue 88 item 3, ``SecondFactorFamily``): the owners' store, off with
/// ``OwnersConfiguration/secondFactor`` `off`; the two-step page in the owners' frame, changed only with a session
/// whose sign-in is recent (``OwnerService/freshlyProven(_:)``, the rule that makes an app password); the second step
/// after a password or a provider, its cookie sealed with the owner pages' key.
extension OwnerSignInFamily: SecondFactorFamily {
    typealias Pending = OwnerSecondStepPending

    var secondFactorStore: SecondFactorStore? {
        service.configuration.secondFactor == .off ? nil : service.secondFactors.store
    }
    var secondFactorPaths: SecondFactorPaths { .owners }
    var audit: AuditTrail { service.audit }
    var bodyLimit: Int { service.configuration.bodyLimit }
    var publicURL: String { service.configuration.publicURL }
    var secondStepKey: [UInt8] { service.browser.key }

    func mayChangeSecondFactor(_ call: Call) async throws -> Bool { try await service.freshlyProven(call.request) }

    /// The page in the owners' frame, its forms given the browser's CSRF token (read once, its cookie set when new).
    func twoStepPage(_ call: Call, status: HTTPStatus, main: (_ csrfToken: String) -> HTML) -> HTTPResponse {
        let (token, setCookie) = service.browser.csrf(for: call.request)
        return HTMLPage.response(
            status,
            OwnerPageShell.document(title: TwoStepParts.title, main: main(token), owner: call.owner, csrfToken: token),
            setCookies: setCookie.map { [$0] } ?? [])
    }

    func secondStepDocument(title: String, main: HTML) -> HTML { OwnerPageShell.document(title: title, main: main) }

    func slowDown(_ retryAfter: Int64) -> String { OwnerMessage.slowDown(retryAfter) }

    /// The pending sign-in while the owner's ways in stand as its first factor found them (``OwnerCredentialStamp``):
    /// a password set or removed, or a second factor turned on or off since, ends it, as the password set ends their
    /// sessions and turning the factor on ends the others.
    func pendingSecondStep(_ fields: [String]) async throws -> OwnerSecondStepPending? {
        guard
            let (owner, stamp) = try await service.owners.secondStepStanding(
                ownerID: fields[0], factors: service.secondFactors.store)
        else { return nil }
        return OwnerSecondStepPending(owner: owner, stamp: stamp, fields: fields)
    }

    /// Opens the owner's session: a new one, even when the factor was set up at this step (which ended every other).
    func openSession(_ pending: OwnerSecondStepPending, factorJustSetUp: Bool, _ request: HTTPRequest) async throws
        -> [String]?
    {
        try await service.openSession(
            pending.owner, request, provider: pending.provider, methods: pending.methods.union(.oneTimeCode))
    }

    func sessionToKeep(_ call: Call) -> String? { call.request.cookie(OwnerBrowser.sessionCookie) }
}
