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

    /// ``freshlyProven(_:)`` by a sign-in the second step guards (a password, a passkey, a provider), not by a pasted
    /// `tm_pro_` token, which no second step asks for: the two-step pages' proof, so that a leaked token cannot turn
    /// the factor off (nor set it up or renew its recovery codes).
    /// - Throws: storage errors.
    public func freshlySignedIn(_ call: WebInboxProUserCall) async throws -> Bool {
        guard let (_, binding) = try await sessions.principal(token: call.session) else { return false }
        if case .apiToken = binding { return false }
        return try await freshlyProven(call)
    }
}
