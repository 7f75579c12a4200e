import Storage

/// What turning a second factor on ends, for one family of people (issue 87/88 review): the holder's ways in that a
/// first factor alone opened, which were enough before and are not any more. The family writes it (its sessions and
/// tokens are its own tables), and ``SecondFactorStore/confirm(holder:code:keeping:)`` runs it in the very
/// transaction that turns the factor on, so the factor is never on while they stand, nor they gone while it is off.
///
/// The session that turned the factor on stays: its sign-in was recent (the setup asks for a fresh proof) and its
/// owner has just typed a code. Credentials a person made on purpose and can revoke one by one (an owner's app
/// passwords and OAuth grants, a Pro user's `tm_pro_` API tokens) are not sessions and stay: each family says which.
public protocol SecondFactorSessions: Sendable {
    /// Ends `holder`'s sessions and session-like tokens but `keeping` (the session cookie of the request that turned
    /// the factor on; nil, when it was turned on at sign-in before any session opened: every one), on `connection`,
    /// inside the caller's transaction.
    /// - Throws: storage errors (the factor is then not turned on).
    func endOthers(holder: String, keeping: String?, _ connection: any SQLConnection) throws
}
