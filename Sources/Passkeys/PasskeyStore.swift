import Foundation
import Storage
import WebAuthn

/// The passkeys of owners and Mail.td Pro users (`passkey_credentials`, migration 0047): added after a verified
/// registration, found by credential id for a sign-in, listed, renamed and removed by their holder, their counter moved
/// on after each sign-in, and marked when a counter went back.
///
/// A credential id is unique across everyone (the database's UNIQUE constraint decides a race). The counter moves by
/// compare-and-set from the value the assertion was verified against, so two sign-ins racing with one counter value
/// cannot both be recorded: the loser is told, and its caller treats the credential as possibly cloned.
public struct PasskeyStore: Sendable {
    /// The longest name a holder may give a passkey, in characters.
    public static let maximumNameLength = 64

    /// The database holding `passkey_credentials`.
    public let database: any SQLDatabase

    /// Passkeys kept in `database` (migrated to 0047).
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// Records a verified registration for `holder`.
    /// - Parameters:
    ///   - registration: what `RelyingParty.verifyRegistration` returned.
    ///   - userHandle: the WebAuthn user handle the credential was created under (1 to 64 bytes).
    ///   - name: the holder's name for it (trimmed; 1 to ``maximumNameLength`` characters).
    /// - Throws: ``PasskeyStoreError``; `StorageError` otherwise.
    public func add(
        _ registration: VerifiedRegistration, for holder: PasskeyHolder, userHandle: [UInt8], name: String, now: Int64
    ) async throws -> PasskeyCredential {
        let name = try Self.checkedName(name)
        let credential = PasskeyCredential(
            id: UUID().uuidString.lowercased(), holder: holder, credentialID: registration.credentialID,
            userHandle: userHandle, publicKey: registration.publicKey, algorithm: registration.algorithm,
            signCount: registration.signCount, aaguid: registration.aaguid,
            attestationFormat: registration.attestationFormat, backupEligible: registration.backupEligible,
            backupState: registration.backupState, name: name, createdAt: now, lastUsedAt: nil, clonedAt: nil)
        let (owner, proUser) = holder.columns
        do {
            _ = try await database.write { connection in
                try connection.run(
                    """
                    INSERT INTO passkey_credentials (id, owner_id, pro_user_id, credential_id, user_handle, public_key,
                        algorithm, sign_count, aaguid, attestation_format, backup_eligible, backup_state, name,
                        created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(credential.id), owner.map(SQLValue.text) ?? .null, proUser.map(SQLValue.text) ?? .null,
                        .blob(credential.credentialID), .blob(userHandle), .blob(credential.publicKey),
                        .integer(credential.algorithm.rawValue), .integer(Int64(credential.signCount)),
                        .blob(credential.aaguid), .text(credential.attestationFormat),
                        .integer(credential.backupEligible ? 1 : 0), .integer(credential.backupState ? 1 : 0),
                        .text(name), .integer(now),
                    ])
            }
        } catch let error as StorageError where error.code == .constraintUnique {
            throw PasskeyStoreError.duplicateCredential
        }
        return credential
    }

    /// The passkey whose credential id is `credentialID`; nil when none.
    public func credential(withID credentialID: [UInt8]) async throws -> PasskeyCredential? {
        try await database.read { connection in
            try connection.query(
                "SELECT \(Self.columns) FROM passkey_credentials WHERE credential_id = ?", [.blob(credentialID)]
            ).first.flatMap(PasskeyCredential.init(row:))
        }
    }

    /// Every passkey of `holder`, oldest first.
    public func credentials(of holder: PasskeyHolder) async throws -> [PasskeyCredential] {
        let (column, id) = Self.holderColumn(holder)
        return try await database.read { connection in
            try connection.query(
                "SELECT \(Self.columns) FROM passkey_credentials WHERE \(column) = ? ORDER BY created_at, id",
                [.text(id)]
            ).compactMap(PasskeyCredential.init(row:))
        }
    }

    /// Records a verified sign-in: the counter moves from `expected` (the value the assertion was verified against)
    /// to `signCount`, with the backup state and the time.
    /// - Returns: false when the counter was no longer `expected` (another sign-in recorded first), or the passkey is
    ///   gone or marked possibly cloned: nothing was written.
    public func recordSignIn(
        credentialID: [UInt8], expected: UInt32, signCount: UInt32, backupState: Bool, now: Int64
    ) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE passkey_credentials SET sign_count = ?, backup_state = ?, last_used_at = ?
                WHERE credential_id = ? AND sign_count = ? AND cloned_at IS NULL
                """,
                [
                    .integer(Int64(signCount)), .integer(backupState ? 1 : 0), .integer(now), .blob(credentialID),
                    .integer(Int64(expected)),
                ]) == 1
        }
    }

    /// Marks a passkey possibly cloned (a counter went back): it signs nobody in until its holder or the operator
    /// removes it. The first mark's time stays.
    /// - Returns: whether a passkey was newly marked.
    @discardableResult
    public func markPossiblyCloned(credentialID: [UInt8], now: Int64) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                "UPDATE passkey_credentials SET cloned_at = ? WHERE credential_id = ? AND cloned_at IS NULL",
                [.integer(now), .blob(credentialID)]) == 1
        }
    }

    /// Renames `holder`'s passkey `id`.
    /// - Returns: false when `holder` has no passkey `id`.
    /// - Throws: ``PasskeyStoreError/invalidName`` for an empty or too long name.
    public func rename(_ id: String, of holder: PasskeyHolder, to name: String) async throws -> Bool {
        let name = try Self.checkedName(name)
        let (column, holderID) = Self.holderColumn(holder)
        return try await database.write { connection in
            try connection.run(
                "UPDATE passkey_credentials SET name = ? WHERE id = ? AND \(column) = ?",
                [.text(name), .text(id), .text(holderID)]) == 1
        }
    }

    /// Removes `holder`'s passkey `id`.
    /// - Returns: false when `holder` has no passkey `id`.
    public func remove(_ id: String, of holder: PasskeyHolder) async throws -> Bool {
        let (column, holderID) = Self.holderColumn(holder)
        return try await database.write { connection in
            try connection.run(
                "DELETE FROM passkey_credentials WHERE id = ? AND \(column) = ?", [.text(id), .text(holderID)]) == 1
        }
    }

    static let columns = """
        id, owner_id, pro_user_id, credential_id, user_handle, public_key, algorithm, sign_count, aaguid, \
        attestation_format, backup_eligible, backup_state, name, created_at, last_used_at, cloned_at
        """

    /// The column naming the holder and its value (never interpolated: the column is one of two constants).
    static func holderColumn(_ holder: PasskeyHolder) -> (String, String) {
        switch holder {
        case .owner(let id): ("owner_id", id)
        case .proUser(let id): ("pro_user_id", id)
        }
    }

    static func checkedName(_ name: String) throws(PasskeyStoreError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maximumNameLength,
            !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw .invalidName }
        return trimmed
    }
}

/// Why the store refused a write.
public enum PasskeyStoreError: Error, Sendable, Equatable {
    /// The credential id is registered already (to this holder or another).
    case duplicateCredential
    /// The name is empty, longer than ``PasskeyStore/maximumNameLength`` or holds control characters.
    case invalidName
}

/// A stored passkey.
public struct PasskeyCredential: Sendable, Equatable {
    /// Its id for pages and the command line (lowercase UUID).
    public let id: String
    /// Whose it is.
    public let holder: PasskeyHolder
    /// The WebAuthn credential id.
    public let credentialID: [UInt8]
    /// The WebAuthn user handle it was created under.
    public let userHandle: [UInt8]
    /// The COSE key.
    public let publicKey: [UInt8]
    /// The key's algorithm, as registered.
    public let algorithm: COSEAlgorithm
    /// The last counter accepted.
    public let signCount: UInt32
    /// The authenticator model's AAGUID.
    public let aaguid: [UInt8]
    /// The attestation format it came with (kept, never trusted).
    public let attestationFormat: String
    /// BE: a synced passkey.
    public let backupEligible: Bool
    /// BS: backed up as of the last ceremony.
    public let backupState: Bool
    /// The holder's name for it.
    public let name: String
    /// When it was registered (Unix seconds).
    public let createdAt: Int64
    /// When it last signed its holder in; nil before the first sign-in.
    public let lastUsedAt: Int64?
    /// When a counter that went back marked it possibly cloned; nil otherwise.
    public let clonedAt: Int64?

    /// What the relying party needs back for an assertion.
    public var stored: StoredCredential {
        StoredCredential(credentialID: credentialID, publicKey: publicKey, algorithm: algorithm, signCount: signCount)
    }

    init(
        id: String, holder: PasskeyHolder, credentialID: [UInt8], userHandle: [UInt8], publicKey: [UInt8],
        algorithm: COSEAlgorithm, signCount: UInt32, aaguid: [UInt8], attestationFormat: String, backupEligible: Bool,
        backupState: Bool, name: String, createdAt: Int64, lastUsedAt: Int64?, clonedAt: Int64?
    ) {
        self.id = id
        self.holder = holder
        self.credentialID = credentialID
        self.userHandle = userHandle
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.aaguid = aaguid
        self.attestationFormat = attestationFormat
        self.backupEligible = backupEligible
        self.backupState = backupState
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.clonedAt = clonedAt
    }

    /// A row of ``PasskeyStore/columns``; nil for a row the migration's checks should have made impossible.
    init?(row: SQLRow) {
        guard let id = row.text("id"),
            let holder = PasskeyHolder(owner: row.text("owner_id"), proUser: row.text("pro_user_id")),
            let credentialID = row.blob("credential_id"), let userHandle = row.blob("user_handle"),
            let publicKey = row.blob("public_key"), let algorithm = row.int("algorithm").flatMap(COSEAlgorithm.init),
            let signCount = row.int("sign_count").flatMap(UInt32.init(exactly:)), let aaguid = row.blob("aaguid"),
            let format = row.text("attestation_format"), let name = row.text("name"),
            let createdAt = row.int("created_at")
        else { return nil }
        self.init(
            id: id, holder: holder, credentialID: credentialID, userHandle: userHandle, publicKey: publicKey,
            algorithm: algorithm, signCount: signCount, aaguid: aaguid, attestationFormat: format,
            backupEligible: row.int("backup_eligible") == 1, backupState: row.int("backup_state") == 1, name: name,
            createdAt: createdAt, lastUsedAt: row.int("last_used_at"), clonedAt: row.int("cloned_at"))
    }
}
