import Audit
import Logging
import Owners
import Passkeys
import PosternApp
import SecondFactors
import SignInProviders
import Storage
import Time

/// The operator commands behind `postern owner passkeys remove` and `postern pro passkeys remove` (issue 56): the
/// removal of a passkey whose device was lost; `postern pro show`; and the passkey lines of it and of `postern owner
/// show` (``showOwner(configuration:email:logger:)``).
extension Operations {
    /// What removing an owner's or a Pro user's passkey came to.
    public enum PasskeyRemoval: Sendable, Equatable {
        /// Removed.
        case removed
        /// Nobody of the kind asked (an owner, a Pro user) has the email.
        case noHolder
        /// The owner or Pro user has no passkey with the id.
        case noPasskey
    }

    /// Removes passkey `id` of the owner with `email` (a lost device): it signs nobody in from now on. Recorded on the
    /// trail as `operator.command` (`owner passkeys remove`, with the email and the passkey's id).
    /// - Throws: storage errors.
    public static func removeOwnerPasskey(
        configuration: PosternConfiguration, email: String, id: String, logger: Logger
    ) async throws -> PasskeyRemoval {
        let database = try migratedDatabase(configuration, logger: logger)
        guard let owner = try await owner(email: email, database, configuration) else { return .noHolder }
        let store = PasskeyStore(database: database)
        guard try await store.remove(id, of: .owner(owner.id)) else { return .noPasskey }
        recordOperator(
            database, target: "owner passkeys remove", details: ["email": owner.email, "passkey": id], logger: logger)
        return .removed
    }

    /// Removes passkey `id` of the Pro user with `email` (a lost device): it signs nobody in to `/inbox` from now on.
    /// Recorded on the trail as `operator.command` (`pro passkeys remove`, with the email and the passkey's id).
    /// - Throws: storage errors.
    public static func removeProUserPasskey(
        configuration: PosternConfiguration, email: String, id: String, logger: Logger
    ) async throws -> PasskeyRemoval {
        let database = try migratedDatabase(configuration, logger: logger)
        let mailbox = try mailboxAccounts(configuration, database: database, logger: logger)
        guard let user = try await mailbox.proUserLinkCandidate(email: email) else { return .noHolder }
        guard try await PasskeyStore(database: database).remove(id, of: .proUser(user.id)) else { return .noPasskey }
        recordOperator(
            database, target: "pro passkeys remove", details: ["email": user.email, "passkey": id], logger: logger)
        return .removed
    }

    /// `postern pro show`: the Pro user with `email` (as `pro list` shows them), whether they have a password and a
    /// proven email, and their passkeys, oldest first (``describe(passkey:)``). Nil when no Pro user has that email.
    /// - Throws: storage errors.
    public static func showProUser(configuration: PosternConfiguration, email: String, logger: Logger) async throws
        -> [String]?
    {
        let database = try migratedDatabase(configuration, logger: logger)
        let mailbox = try mailboxAccounts(configuration, database: database, logger: logger)
        guard let user = try await mailbox.proUserLinkCandidate(email: email),
            let summary = try await mailbox.listProUsers().first(where: { $0.id == user.id })
        else { return nil }
        let passkeys = try await PasskeyStore(database: database).credentials(of: .proUser(user.id))
        let identities = try await SignInIdentityStore(database: database, clock: { unixNow() })
            .identities(surface: .pro, account: user.id)
        let secondFactor = try await SecondFactorStore(.proUsers, database: database, sealing: nil, clock: { unixNow() })
            .state(holder: user.id)
        return [
            describe(summary),
            "  password: " + (user.hasPassword ? "set" : "none (removed, or made by a sign-in provider)"),
            "  email: " + (user.emailVerified ? "proven" : "not proven"),
            "  two-step sign-in: " + describe(secondFactor: secondFactor),
        ] + (passkeys.isEmpty ? ["  no passkeys"] : passkeys.map(describe(passkey:)))
            + (identities.isEmpty ? [] : ["  sign-in identities: \(identities.count)"] + identities.map(describe(identity:)))
    }

    /// What `owner set-password` and `pro set-password` print after the new password (issue 66 item 4): every other
    /// way in that still stands (passkeys, linked sign-in identities), each with when it was added, so that the
    /// operator recovering an account sees what a thief may have added and removes it (`passkeys remove`; a linked
    /// provider is unlinked from "Sign-in methods" by the person, signed in with the new password). Empty when there
    /// is none; nil when nobody of the family has `email`.
    /// - Parameter owner: true for an owner, false for a Pro user.
    /// - Throws: storage errors.
    public static func otherWaysIn(configuration: PosternConfiguration, email: String, owner: Bool, logger: Logger)
        async throws -> [String]?
    {
        let database = try migratedDatabase(configuration, logger: logger)
        let account: String?
        if owner {
            account = try await ownerStore(database, configuration).linkCandidate(email: email)?.owner.id
        } else {
            account = try await mailboxAccounts(configuration, database: database, logger: logger)
                .proUserLinkCandidate(email: email)?.id
        }
        guard let account else { return nil }
        let passkeys = try await PasskeyStore(database: database).credentials(of: owner ? .owner(account) : .proUser(account))
        let identities = try await SignInIdentityStore(database: database, clock: { unixNow() })
            .identities(surface: owner ? .owners : .pro, account: account)
        return passkeys.map(describe(passkey:)) + identities.map(describe(identity:))
    }

    /// `  passkey ID  "NAME"  ALG  created T  last used T|never  synced|this device only[  POSSIBLY CLONED T]`.
    static func describe(passkey: PasskeyCredential) -> String {
        let algorithm =
            switch passkey.algorithm {
            case .es256: "ES256"
            case .eddsa: "EdDSA"
            case .rs256: "RS256"
            }
        let used = passkey.lastUsedAt.map { "last used \(RFC3339.format($0))" } ?? "never used"
        let cloned = passkey.clonedAt.map { "  POSSIBLY CLONED \(RFC3339.format($0))" } ?? ""
        let name = AuditText.escaped(passkey.name)
        return "  passkey \(passkey.id)  \"\(name)\"  \(algorithm)  created \(RFC3339.format(passkey.createdAt))  "
            + "\(used)  \(passkey.backupEligible ? "synced" : "this device only")\(cloned)"
    }

    static func owner(
        email: String, _ database: any SQLDatabase, _ configuration: PosternConfiguration
    ) async throws -> Owner? {
        let email = OwnerCredentials.normalizedEmail(email) ?? email
        return try await ownerStore(database, configuration).list().first { $0.email == email }
    }
}
