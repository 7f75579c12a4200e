import Audit
import Logging
import Owners
import PosternApp
import Time

/// The operator command behind `postern owner mfa reset` (issue 88 item 3).
extension Operations {
    /// What resetting an owner's second factor came to.
    public enum SecondFactorReset: Sendable, Equatable {
        /// Their TOTP secret and recovery codes are deleted: a password signs them in alone (or, with a policy that
        /// requires a second factor, they set up a new one at their next sign-in).
        case reset
        /// The owner had none.
        case notSet
        /// No owner has the email.
        case noOwner
    }

    /// Removes the second factor (TOTP and recovery codes) of the owner with `email`, who lost their authenticator
    /// app and their recovery codes. Their sessions and other ways in are untouched. Recorded on the trail as
    /// `owner.mfa_reset` (actor the operator, target the owner's email, their id in the details).
    /// - Throws: storage errors.
    public static func resetOwnerSecondFactor(configuration: PosternConfiguration, email: String, logger: Logger)
        async throws -> SecondFactorReset
    {
        let database = try migratedDatabase(configuration, logger: logger)
        guard let candidate = try await ownerStore(database, configuration).linkCandidate(email: email) else {
            return .noOwner
        }
        let factors = OwnerSecondFactors(database: database, sealing: nil, clock: { unixNow() })
        guard try await factors.remove(ownerID: candidate.owner.id) else { return .notSet }
        recordOperator(
            database, .ownerSecondFactorReset, target: candidate.owner.email,
            details: ["owner_id": candidate.owner.id, "command": "owner mfa reset"], logger: logger)
        return .reset
    }

    /// `on (N recovery codes left)`, `set up, not confirmed` or `off`, as `owner show` lists it.
    static func describe(secondFactor state: OwnerSecondFactors.State) -> String {
        switch state {
        case .off: "off"
        case .pending: "set up, not confirmed (asks for nothing yet)"
        case .on(let left): "on (TOTP; \(left) recovery code\(left == 1 ? "" : "s") left)"
        }
    }
}
