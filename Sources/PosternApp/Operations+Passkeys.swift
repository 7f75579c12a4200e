import Audit
import Logging
import Owners
import Passkeys
import Storage
import Time

/// The operator command behind `postern owner passkeys remove` (issue 56): the removal of a passkey whose device was
/// lost; and the passkey lines of `postern owner show` (``showOwner(configuration:email:logger:)``).
extension Operations {
    /// What removing an owner's passkey came to.
    public enum PasskeyRemoval: Sendable, Equatable {
        /// Removed.
        case removed
        /// No owner has the email.
        case noOwner
        /// The owner has no passkey with the id.
        case noPasskey
    }

    /// Removes passkey `id` of the owner with `email` (a lost device): it signs nobody in from now on. Recorded on the
    /// trail as `operator.command` (`owner passkeys remove`, with the email and the passkey's id).
    /// - Throws: storage errors.
    public static func removeOwnerPasskey(
        configuration: PosternConfiguration, email: String, id: String, logger: Logger
    ) async throws -> PasskeyRemoval {
        let database = try migratedDatabase(configuration, logger: logger)
        guard let owner = try await owner(email: email, database) else { return .noOwner }
        let store = PasskeyStore(database: database)
        guard try await store.remove(id, of: .owner(owner.id)) else { return .noPasskey }
        recordOperator(
            database, target: "owner passkeys remove", details: ["email": owner.email, "passkey": id], logger: logger)
        return .removed
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

    private static func owner(email: String, _ database: any SQLDatabase) async throws -> Owner? {
        let email = email.lowercased()
        return try await ownerStore(database).list().first { $0.email == email }
    }
}
