import Foundation
import AuthCrypto
import Storage

/// The app passwords of migration 0070 (`app_passwords`), the only code with SQL of that table: made (the secret
/// returned once, its digest stored), listed, revoked (the row deleted, so the next check, at a sign-in or of a
/// session's standing, finds nothing: there is no cache to outlive it), and found by a typed secret's digest.
public struct AppPasswordStore: Sendable {
    let database: any SQLDatabase
    /// App passwords one holder may have at once.
    public let limit: Int

    /// Seconds within which a sign-in does not write its time again: one write a minute at most per app password,
    /// not one per sign-in.
    public static let lastUsedResolution: Int64 = 60
    /// Longest name, in characters.
    public static let maxNameLength = 100

    /// - Parameters:
    ///   - database: a database with migration 0070 applied.
    ///   - limit: app passwords one holder may have at once.
    public init(database: any SQLDatabase, limit: Int) {
        self.database = database
        self.limit = limit
    }

    /// Why an app password was not made.
    public enum CreationError: Error, Equatable, Sendable {
        /// The name is empty, longer than ``maxNameLength`` or more than one line.
        case invalidName
        /// No door was chosen.
        case noDoor
        /// The holder has ``limit`` already.
        case tooMany
    }

    /// Makes an app password for `holder` opening inbox `accountID` (at `address`) at `doors`; the secret is returned
    /// this once, in its shown form.
    /// - Warning: the caller checks that `holder` holds the inbox now; every sign-in checks it again.
    /// - Throws: ``CreationError``; storage errors.
    public func create(
        holder: AppPassword.Holder, accountID: String, address: String, name: String, doors: AppPasswordDoors,
        now: Int64
    ) async throws -> (password: AppPassword, secret: String) {
        let name = name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= Self.maxNameLength, !name.contains(where: { $0.isNewline || $0 < " " })
        else { throw CreationError.invalidName }
        guard !doors.isEmpty, AppPasswordDoors.all.isSuperset(of: doors) else { throw CreationError.noDoor }
        let secret = AppPasswordSecret.generate()
        let digest = AppPasswordSecret.digest(AppPasswordSecret.normalized(secret)!)
        let password = AppPassword(
            id: SecureRandom.identifier(byteCount: 12), holder: holder, accountID: accountID, address: address,
            name: name, doors: doors, createdAt: now, lastUsedAt: nil)
        let (column, holderID) = Self.column(of: holder)
        _ = try await database.write { [limit] connection in
            try connection.transaction {
                let held =
                    try connection.query(
                        "SELECT COUNT(*) AS n FROM app_passwords WHERE \(column) = ?", [.text(holderID)]
                    ).first?.int("n") ?? 0
                guard held < limit else { throw CreationError.tooMany }
                try connection.run(
                    """
                    INSERT INTO app_passwords (id, \(column), account_id, address, name, doors, digest, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(password.id), .text(holderID), .text(accountID), .text(address), .text(name),
                        .integer(doors.rawValue), .blob(digest), .integer(now),
                    ])
            }
        }
        return (password, secret)
    }

    /// `holder`'s app passwords, newest first.
    /// - Throws: storage errors.
    public func list(_ holder: AppPassword.Holder) async throws -> [AppPassword] {
        let (column, holderID) = Self.column(of: holder)
        return try await database.read { connection in
            try connection.query(
                "\(Self.select) WHERE \(column) = ? ORDER BY created_at DESC, id", [.text(holderID)]
            ).compactMap(Self.password)
        }
    }

    /// Revokes `holder`'s app password `id` (deleted: it opens nothing from now on, and sessions resting on it end
    /// at their next check); whether there was one.
    /// - Throws: storage errors.
    public func revoke(id: String, holder: AppPassword.Holder) async throws -> Bool {
        let (column, holderID) = Self.column(of: holder)
        return try await database.write { connection in
            try connection.run(
                "DELETE FROM app_passwords WHERE id = ? AND \(column) = ?", [.text(id), .text(holderID)]) > 0
        }
    }

    /// The app password `typed` is (found by its digest, then compared in constant time); nil when `typed` is not of
    /// the form or no live app password has that digest.
    /// - Throws: storage errors.
    public func find(_ typed: String) async throws -> AppPassword? {
        guard let letters = AppPasswordSecret.normalized(typed) else { return nil }
        let digest = AppPasswordSecret.digest(letters)
        return try await database.read { connection in
            guard let row = try connection.query("\(Self.select) WHERE digest = ?", [.blob(digest)]).first,
                let stored = row.blob("digest"), constantTimeEquals(stored, digest)
            else { return nil }
            return Self.password(row)
        }
    }

    /// Whether app password `id` still exists (a session's standing).
    /// - Throws: storage errors.
    public func exists(id: String) async throws -> Bool {
        try await database.read { connection in
            try !connection.query("SELECT 1 AS one FROM app_passwords WHERE id = ?", [.text(id)]).isEmpty
        }
    }

    /// Notes a sign-in with `password` at `now`, unless its last use is less than ``lastUsedResolution`` ago (then
    /// nothing is written).
    /// - Throws: storage errors.
    public func markUsed(_ password: AppPassword, now: Int64) async throws {
        if let last = password.lastUsedAt, now - last < Self.lastUsedResolution { return }
        _ = try await database.write { connection in
            try connection.run(
                "UPDATE app_passwords SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)",
                [.integer(now), .text(password.id), .integer(now - Self.lastUsedResolution)])
        }
    }

    private static let select = """
        SELECT id, owner_id, pro_user_id, account_id, address, name, doors, digest, created_at, last_used_at
        FROM app_passwords
        """

    private static func column(of holder: AppPassword.Holder) -> (column: String, id: String) {
        switch holder {
        case .owner(let id): ("owner_id", id)
        case .proUser(let id): ("pro_user_id", id)
        }
    }

    private static func password(_ row: SQLRow) -> AppPassword? {
        let holder: AppPassword.Holder
        if let owner = row.text("owner_id") {
            holder = .owner(owner)
        } else if let pro = row.text("pro_user_id") {
            holder = .proUser(pro)
        } else {
            return nil
        }
        guard let id = row.text("id"), let account = row.text("account_id"), let address = row.text("address"),
            let name = row.text("name"), let doors = row.int("doors"), let created = row.int("created_at")
        else { return nil }
        return AppPassword(
            id: id, holder: holder, accountID: account, address: address, name: name,
            doors: AppPasswordDoors(rawValue: doors), createdAt: created, lastUsedAt: row.int("last_used_at"))
    }
}
