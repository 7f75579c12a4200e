import ComputePool
import Foundation
import Logging
import Owners
import PasswordHashing

/// The operator commands behind `postern owner create|list|set-password|remove`.
extension Operations {
    /// Creates an owner who signs in with `email` and `password`; returns a one-line summary.
    /// - Throws: `OwnerError` for a bad email or password or a taken email; storage errors.
    public static func createOwner(
        configuration: PosternConfiguration, email: String, password: String, logger: Logger
    ) async throws -> String {
        describe(try await ownerStore(configuration, logger: logger).create(email: email, password: password))
    }

    /// One line per owner, oldest first.
    public static func listOwners(configuration: PosternConfiguration, logger: Logger) async throws -> [String] {
        try await ownerStore(configuration, logger: logger).list().map(describe)
    }

    /// Sets the password of the owner with `email` and signs every browser of theirs out. False when none.
    /// - Throws: ``OwnerError/weakPassword``; storage errors.
    public static func setOwnerPassword(
        configuration: PosternConfiguration, email: String, password: String, logger: Logger
    ) async throws -> Bool {
        try await ownerStore(configuration, logger: logger).setPassword(email: email, password: password)
    }

    /// Removes the owner with `email` (their sessions, inbox links and grants; the inboxes stay). False when none.
    public static func removeOwner(configuration: PosternConfiguration, email: String, logger: Logger) async throws
        -> Bool
    {
        try await ownerStore(configuration, logger: logger).remove(email: email)
    }

    static func describe(_ owner: Owner) -> String {
        "\(owner.id)  \(owner.email)  created \(Date(timeIntervalSince1970: TimeInterval(owner.createdAt)).formatted(.iso8601))"
    }

    private static func ownerStore(_ configuration: PosternConfiguration, logger: Logger) throws -> OwnerStore {
        OwnerStore(
            database: try migratedDatabase(configuration, logger: logger),
            hasher: PasswordHasher(parameters: OwnersConfiguration(publicURL: "").argon2, pool: WorkerPool(threads: 1)),
            clock: { unixNow() })
    }
}
