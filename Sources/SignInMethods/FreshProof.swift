/// The fresh-proof rule (issue 66 item 4, issue 87 item 2): what adds a lasting way in or makes a credential of its own
/// (a passkey, a linked provider, an app password, a TOTP secret) needs a session whose holder proved who they are
/// lately, not one opened hours ago on a shared computer, as GitHub's sudo mode and Keycloak's `max_age` ask.
/// A session proves its holder as of its sign-in (password, passkey or provider: every session is opened by one, see
/// ``OwnerSessions/openedAt(token:)``); it is fresh while no more than ``window`` seconds have passed since. Otherwise
/// the page sends the browser to sign in again (``OwnerService/proofPath(next:)``) and back.
///
/// Pure, with the time given: ``SignInMethodsController/hasFreshProof(_:)`` asks it of a family's session (its
/// ``SignInFamily/freshProof``), and so do the Pro dashboard's app passwords.
public struct FreshProof: Sendable, Equatable {
    /// Seconds a sign-in stays fresh (`POSTERN_OWNER_FRESH_PROOF_SECONDS`, default 300).
    public let window: Int64

    public init(window: Int64) { self.window = window }

    /// Whether a session whose sign-in was at `provenAt` (Unix seconds; nil: no session) is fresh at `now`. A sign-in
    /// time after `now` (a clock stepped back) is not trusted to be fresh beyond the window either.
    public func holds(provenAt: Int64?, now: Int64) -> Bool {
        guard let provenAt else { return false }
        let age = now - provenAt
        return age >= -window && age <= window
    }
}
