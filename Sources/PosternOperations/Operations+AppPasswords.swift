import AgentAuth
import AppPasswords
import Directory
import EmailAddresses
import Logging
import Owners
import PosternApp
import Storage
import Time

/// The operator commands behind `postern owner app-password create|list|revoke` (issue 87 item 2): an owner's app
/// passwords, as `/owner/app-passwords` makes them but without the fresh sign-in (the operator holds the database).
extension Operations {
    /// Why an app password was not made from the command line.
    public enum AppPasswordCommandError: Error, Equatable {
        case unknownOwner
        /// The owner holds no inbox with that address or id.
        case unknownInbox
        case refused(AppPasswordStore.CreationError)
    }

    /// Makes an app password of the owner with `email` for their inbox `inbox` (its address or id) at `doors`; returns
    /// the listing line and the secret, shown this once.
    /// - Throws: ``AppPasswordCommandError``; storage errors.
    public static func createAppPassword(
        configuration: PosternConfiguration, email: String, inbox: String, doors: AppPasswordDoors, name: String,
        logger: Logger
    ) async throws -> (line: String, secret: String) {
        let database = try migratedDatabase(configuration, logger: logger)
        let owner = try await appPasswordOwner(database, configuration, email: email)
        let held = try await ownedInboxes(database, configuration).inboxes(ownerID: owner.id)
        guard let chosen = held.first(where: { $0.accountID == inbox.lowercased() || EmailAddress.same($0.address, inbox) })
        else { throw AppPasswordCommandError.unknownInbox }
        do {
            let (password, secret) = try await Surfaces.appPasswords(configuration, database: database).create(
                holder: .owner(owner.id), accountID: chosen.accountID, address: chosen.address, name: name,
                doors: doors, now: unixNow())
            recordOperator(
                database, .appPasswordCreated, target: password.id,
                details: ["owner_id": owner.id, "inbox": chosen.address, "doors": doors.names.joined(separator: ",")],
                logger: logger)
            return (describe(password), secret)
        } catch let error as AppPasswordStore.CreationError {
            throw AppPasswordCommandError.refused(error)
        }
    }

    /// One line per app password of the owner with `email`, newest first.
    /// - Throws: ``AppPasswordCommandError/unknownOwner``; storage errors.
    public static func listAppPasswords(configuration: PosternConfiguration, email: String, logger: Logger)
        async throws -> [String]
    {
        let database = try migratedDatabase(configuration, logger: logger)
        let owner = try await appPasswordOwner(database, configuration, email: email)
        return try await Surfaces.appPasswords(configuration, database: database).list(.owner(owner.id)).map(describe)
    }

    /// Revokes app password `id` of the owner with `email`; false when they have none with that id.
    /// - Throws: ``AppPasswordCommandError/unknownOwner``; storage errors.
    public static func revokeAppPassword(
        configuration: PosternConfiguration, email: String, id: String, logger: Logger
    ) async throws -> Bool {
        let database = try migratedDatabase(configuration, logger: logger)
        let owner = try await appPasswordOwner(database, configuration, email: email)
        let revoked = try await Surfaces.appPasswords(configuration, database: database).revoke(
            id: id, holder: .owner(owner.id))
        if revoked {
            recordOperator(database, .appPasswordRevoked, target: id, details: ["owner_id": owner.id], logger: logger)
        }
        return revoked
    }

    /// `ID  NAME  ADDRESS  doors  created T  last used T|never`.
    static func describe(_ password: AppPassword) -> String {
        let used = password.lastUsedAt.map { "last used \(RFC3339.format($0))" } ?? "never used"
        return "\(password.id)  \(password.name)  \(password.address)  \(password.doors.names.joined(separator: ","))  "
            + "created \(RFC3339.format(password.createdAt))  \(used)"
    }

    private static func appPasswordOwner(
        _ database: any SQLDatabase, _ configuration: PosternConfiguration, email: String
    ) async throws -> Owner {
        guard let owner = try await ownerStore(database, configuration).linkCandidate(email: email)?.owner else {
            throw AppPasswordCommandError.unknownOwner
        }
        return owner
    }

    private static func ownedInboxes(_ database: any SQLDatabase, _ configuration: PosternConfiguration)
        -> AgentOwnedInboxes
    {
        AgentOwnedInboxes(
            accounts: AgentAccountStore(database: database), domain: configuration.agent.inboxDomain,
            clock: { unixNow() })
    }
}
