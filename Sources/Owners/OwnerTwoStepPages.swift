import SecondFactors
import ServerKit

/// The two-step pages (``TwoStepPages``) mounted for owners at `/owner/two-step` (issue 88 item 3), through the
/// owners' ``SecondFactorFamily``: in the owners' frame and session, on the owners' store, each change needing a
/// recent sign-in (``OwnerService/freshlyProven(_:)``) and on the owner's trail. With
/// ``OwnersConfiguration/secondFactor`` `off` the pages are not found.
public struct OwnerTwoStepPages: Sendable {
    let service: OwnerService

    /// - Parameter service: sign-in, sessions, CSRF and the second factors.
    public init(service: OwnerService) {
        self.service = service
    }

    /// Adds `GET /owner/two-step` and `POST /owner/two-step/setup|confirm|recovery-codes|disable`.
    public func register(into router: inout ContextRouter) {
        TwoStepPages(OwnerSignInFamily(service: service)).register(into: &router)
    }
}
