import SignInMethods

extension WebInboxService {
    /// The sign-in page that asks a signed-in Pro user to sign in again (a fresh proof) and comes back to the
    /// dashboard.
    public static let proofPath = "/inbox/sign-in?again=1"

    /// Whether `call`'s session was opened by a sign-in within ``WebInboxConfiguration/freshProof`` (the owners' rule,
    /// ``FreshProof``).
    /// - Throws: storage errors.
    public func freshlyProven(_ call: WebInboxProUserCall) async throws -> Bool {
        configuration.freshProof.holds(provenAt: try await sessions.openedAt(token: call.session), now: clock())
    }
}
