import Audit
import ComputePool
import Foundation
import Logging
import Owners
import PasswordHashing
import PosternApp
import Storage
import Time

/// The operator commands behind `postern owner create|list|approve|set-password|remove`.
extension Operations {
    /// Creates an owner who signs in with `email` and `password`, approved as they are made (the operator answers for
    /// them: with `POSTERN_OUTBOUND_SENDERS=owned` their inboxes may send outside); returns a one-line summary.
    /// - Throws: `OwnerError` for a bad email or password or a taken email; storage errors.
    public static func createOwner(
        configuration: PosternConfiguration, email: String, password: String, logger: Logger
    ) async throws -> String {
        let database = try migratedDatabase(configuration, logger: logger)
        let owner = try await ownerStore(database, configuration).create(email: email, password: password, approved: true)
        recordOperator(
            database, target: "owner create", details: ["owner_id": owner.id, "email": owner.email], logger: logger)
        return describe(owner)
    }

    /// One line per owner, oldest first.
    public static func listOwners(configuration: PosternConfiguration, logger: Logger) async throws -> [String] {
        try await ownerStore(migratedDatabase(configuration, logger: logger), configuration).list().map(describe)
    }

    /// Approves the owner with `email` (an owner who signed up themselves): the operator answers for them, and with
    /// `POSTERN_OUTBOUND_SENDERS=owned` their inboxes may send outside from their next submission; or, with
    /// `approved` false, withdraws the approval (their inboxes' outside mail stays in the outbox again). False when no
    /// owner has that email.
    /// - Throws: storage errors.
    public static func approveOwner(
        configuration: PosternConfiguration, email: String, approved: Bool = true, logger: Logger
    ) async throws -> Bool {
        let database = try migratedDatabase(configuration, logger: logger)
        let found = try await OwnerApprovals(database: database).setApproved(email: email, approved, now: unixNow())
        if found {
            recordOperator(
                database, target: approved ? "owner approve" : "owner approve --withdraw", details: ["email": email],
                logger: logger)
        }
        return found
    }

    /// Sets the password of the owner with `email` and signs every browser of theirs out. False when none.
    /// - Throws: ``OwnerError/weakPassword``; storage errors.
    public static func setOwnerPassword(
        configuration: PosternConfiguration, email: String, password: String, logger: Logger
    ) async throws -> Bool {
        let database = try migratedDatabase(configuration, logger: logger)
        let found = try await ownerStore(database, configuration).setPassword(email: email, password: password)
        if found { recordOperator(database, target: "owner set-password", details: ["email": email], logger: logger) }
        return found
    }

    /// Removes the owner with `email` (their sessions, inbox links and grants; the inboxes stay). False when none.
    public static func removeOwner(configuration: PosternConfiguration, email: String, logger: Logger) async throws
        -> Bool
    {
        let database = try migratedDatabase(configuration, logger: logger)
        let removed = try await ownerStore(database, configuration).remove(email: email)
        if removed { recordOperator(database, target: "owner remove", details: ["email": email], logger: logger) }
        return removed
    }

    /// `ID  EMAIL  created T  approved T|waiting for approval`.
    static func describe(_ owner: Owner) -> String {
        func time(_ seconds: Int64) -> String { RFC3339.format(seconds) }
        let approval = owner.approvedAt.map { "approved \(time($0))" } ?? "waiting for approval"
        return "\(owner.id)  \(owner.email)  created \(time(owner.createdAt))  \(approval)"
    }

    /// The owners' store of the commands, hashing a password it sets with the operator's Argon2 cost.
    static func ownerStore(_ database: any SQLDatabase, _ configuration: PosternConfiguration) -> OwnerStore {
        OwnerStore(
            database: database,
            hasher: PasswordHasher(parameters: configuration.passwords.argon2, pool: WorkerPool(threads: 1)),
            clock: { unixNow() })
    }
}
