import Audit
import Logging
import Owners
import PosternApp
import SecondFactors
import Storage
import Time

/// The operator commands behind `postern owner mfa reset` and `postern pro mfa reset` (issue 88 item 3).
extension Operations {
    /// What resetting an owner's second factor came to.
    public enum SecondFactorReset: Sendable, Equatable {
        /// Their TOTP secret and recovery codes are deleted: a password signs them in alone (or, with a policy that
        /// requires a second factor, they set up a new one at their next sign-in).
        case reset
        /// The owner had none.
        case notSet
        /// No owner (for `pro mfa reset`, no Pro user) has the email.
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
        let owner = try await ownerStore(database, configuration).linkCandidate(email: email)?.owner
        return try await resetSecondFactor(
            database, .owners, holder: owner.map { ($0.id, $0.email) }, .ownerSecondFactorReset, idKey: "owner_id",
            command: "owner mfa reset", logger: logger)
    }

    /// Removes the second factor (TOTP and recovery codes) of the Pro user with `email`, as
    /// ``resetOwnerSecondFactor(configuration:email:logger:)`` does an owner's. Recorded on the trail as `pro.mfa_reset`
    /// (actor the operator, target the user's email, their id in the details).
    /// - Returns: ``SecondFactorReset/noOwner`` when no Pro user has `email`.
    /// - Throws: storage errors.
    public static func resetProSecondFactor(configuration: PosternConfiguration, email: String, logger: Logger)
        async throws -> SecondFactorReset
    {
        let database = try migratedDatabase(configuration, logger: logger)
        let accounts = try mailboxAccounts(configuration, database: database, logger: logger)
        let user = try await accounts.proUserLinkCandidate(email: email)
        return try await resetSecondFactor(
            database, .proUsers, holder: user.map { ($0.id, $0.email) }, .proSecondFactorReset, idKey: "pro_user_id",
            command: "pro mfa reset", logger: logger)
    }

    /// The reset both families share: `holder`'s factor removed from `tables`, and one line on the trail (`action`,
    /// actor the operator, target the holder's email, their id under `idKey`).
    private static func resetSecondFactor(
        _ database: any SQLDatabase, _ tables: SecondFactorTables, holder: (id: String, email: String)?,
        _ action: AuditAction, idKey: String, command: String, logger: Logger
    ) async throws -> SecondFactorReset {
        guard let holder else { return .noOwner }
        let factors = SecondFactorStore(tables, database: database, sealing: nil, clock: { unixNow() })
        guard try await factors.remove(holder: holder.id) else { return .notSet }
        recordOperator(
            database, action, target: holder.email, details: [idKey: holder.id, "command": command], logger: logger)
        return .reset
    }

    /// `on (N recovery codes left)`, `set up, not confirmed` or `off`, as `owner show` lists it.
    static func describe(secondFactor state: SecondFactorStore.State) -> String {
        switch state {
        case .off: "off"
        case .pending: "set up, not confirmed (asks for nothing yet)"
        case .on(let left): "on (TOTP; \(left) recovery code\(left == 1 ? "" : "s") left)"
        }
    }
}
