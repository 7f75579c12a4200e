import HTTP1
import SecondFactors
import ServerKit
import SignInMethods

/// The second step of an owner's sign-in (issue 88 item 3; ``SecondStep`` mounted for owners): after a password (or
/// a provider, when ``OwnersConfiguration/secondFactor`` says so) an owner whose second factor is on types a code from
/// their app or a recovery code at `/owner/sign-in/second-step` before their session opens; one who must have a
/// second factor and has none sets one up there first. Codes are checked under the sign-in backoff (namespace
/// `owner-second-factor`, by the owner's email and the client's address). The session records how it was earned
/// (``AuthenticationMethods``: the first factor and `otp`).
extension OwnerService {
    /// Adds `GET|POST /owner/sign-in/second-step`.
    func registerSecondStep(into router: inout ContextRouter) {
        SecondStep(OwnerSignInFamily(service: self)).register(into: &router)
    }

    /// What a sign-in by `methods` (a first factor) of `owner` does next: nil when the session opens now; else the
    /// 303 to the second step, with the pending sign-in sealed in its cookie (and `setCookies`).
    /// - Throws: storage errors.
    func secondStep(
        _ owner: Owner, by methods: AuthenticationMethods, provider: String?, next: String, setCookies: [String] = []
    ) async throws -> HTTPResponse? {
        guard configuration.secondFactor != .off else { return nil }
        let enrolled = try await secondFactors.state(ownerID: owner.id).isOn
        guard configuration.secondFactor.step(after: methods, enrolled: enrolled) != .none else { return nil }
        // Removed since the first factor passed: no session, no second step; they start over.
        guard let (_, stamp) = try await owners.secondStepStanding(ownerID: owner.id, factors: secondFactors.store)
        else {
            return HTMLPage.redirect(to: "/owner/sign-in", setCookies: setCookies)
        }
        let pending = OwnerSecondStepPending(
            owner: owner, methods: methods, provider: provider, next: next, stamp: stamp)
        return try SecondStep(OwnerSignInFamily(service: self)).redirect(pending, setCookies: setCookies)
    }
}
