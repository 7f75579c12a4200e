import AuthCrypto
import Storage
import TOTP

/// Owners' second factor (issue 88 item 3, migration 0074): a TOTP secret (RFC 6238) set up, confirmed by a first
/// code, checked with the one-step window and the replay rule (``TOTP``: the last accepted step is stored and the
/// store's conditional update refuses it again, whichever instance sees the code), and ten recovery codes stored as
/// SHA-256 digests, each used once.
public struct OwnerSecondFactors: Sendable {
    let database: any SQLDatabase
    let sealing: OwnerSecretSealing?
    let clock: @Sendable () -> Int64
    /// The codes' parameters (30 s, 6 digits, one step either side).
    public let totp = TOTP()
    /// Bytes of a new secret: 160 bits, RFC 4226's recommendation for HMAC-SHA1.
    static let secretBytes = 20

    /// - Parameters:
    ///   - database: a database with migration 0074 applied.
    ///   - sealing: how the secret is sealed at rest; nil keeps it in the clear (SQLite).
    ///   - clock: Unix seconds.
    public init(database: any SQLDatabase, sealing: OwnerSecretSealing?, clock: @escaping @Sendable () -> Int64) {
        self.database = database
        self.sealing = sealing
        self.clock = clock
    }

    /// Where an owner's second factor stands.
    public enum State: Equatable, Sendable {
        /// None.
        case off
        /// Set up, waiting for a first code: it asks for nothing at sign-in yet.
        case pending
        /// On: a password sign-in asks for a code; `recoveryCodesLeft` unused recovery codes.
        case on(recoveryCodesLeft: Int)
    }

    /// `ownerID`'s state.
    /// - Throws: storage errors.
    public func state(ownerID: String) async throws -> State {
        try await database.read { connection in
            guard let row = try connection.query(
                "SELECT confirmed_at FROM owner_totp WHERE owner_id = ?", [.text(ownerID)]
            ).first else { return .off }
            guard row.int("confirmed_at") != nil else { return .pending }
            let left = try connection.query(
                "SELECT COUNT(*) AS n FROM owner_recovery_codes WHERE owner_id = ? AND used_at IS NULL",
                [.text(ownerID)]
            ).first?.int("n") ?? 0
            return .on(recoveryCodesLeft: Int(left))
        }
    }

    /// A new secret for `ownerID`, waiting for its first code (replacing one that waited); nil when a confirmed one is
    /// on (it is turned off first).
    /// - Throws: storage and sealing errors.
    public func begin(ownerID: String) async throws -> [UInt8]? {
        let secret = SecureRandom.bytes(Self.secretBytes)
        let stored = try sealed(secret, ownerID: ownerID)
        let now = clock()
        let made = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO owner_totp (owner_id, secret, created_at) VALUES (?, ?, ?)
                ON CONFLICT (owner_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at
                WHERE owner_totp.confirmed_at IS NULL
                """, [.text(ownerID), .blob(stored), .integer(now)]) == 1
        }
        return made ? secret : nil
    }

    /// The secret of `ownerID` waiting for its first code; nil when none waits.
    /// - Throws: storage and sealing errors.
    public func pendingSecret(ownerID: String) async throws -> [UInt8]? {
        guard let found = try await row(ownerID), !found.confirmed else { return nil }
        return found.secret
    }

    /// Turns the waiting secret on when `code` is its code now: the step is stored (that code signs nobody in) and a
    /// new set of recovery codes is made. Returns the codes, to show once; nil for a wrong code or nothing waiting.
    /// - Throws: storage and sealing errors.
    public func confirm(ownerID: String, code: String) async throws -> [String]? {
        guard let secret = try await pendingSecret(ownerID: ownerID) else { return nil }
        let now = clock()
        guard case .accepted(let step) = totp.verify(code, secret: secret, now: now, lastStep: nil) else { return nil }
        let codes = RecoveryCodes.generate()
        let confirmed = try await database.write { connection in
            try connection.transaction {
                guard try connection.run(
                    "UPDATE owner_totp SET confirmed_at = ?, last_step = ? WHERE owner_id = ? AND confirmed_at IS NULL",
                    [.integer(now), .integer(step), .text(ownerID)]) == 1
                else { return false }
                try Self.replaceRecoveryCodes(codes, ownerID: ownerID, now: now, connection)
                return true
            }
        }
        return confirmed ? codes : nil
    }

    /// What a code typed at the second step came to.
    public enum Check: Equatable, Sendable {
        /// A TOTP code of the window, not used before.
        case totp
        /// One of the owner's unused recovery codes, now used.
        case recoveryCode
        /// A right code of a step already accepted.
        case replayed
        /// Neither (or no second factor on).
        case wrong
    }

    /// Checks `code` for `ownerID`: a TOTP code (accepted once: the step is stored only if it is later than the last
    /// one, in one conditional update) or else a recovery code (used once, in one conditional update).
    /// - Throws: storage and sealing errors.
    public func check(ownerID: String, code: String) async throws -> Check {
        guard let found = try await row(ownerID), found.confirmed else { return .wrong }
        let now = clock()
        switch totp.verify(code, secret: found.secret, now: now, lastStep: found.lastStep) {
        case .accepted(let step):
            let stored = try await database.write { connection in
                try connection.run(
                    """
                    UPDATE owner_totp SET last_step = ?
                    WHERE owner_id = ? AND confirmed_at IS NOT NULL AND (last_step IS NULL OR last_step < ?)
                    """, [.integer(step), .text(ownerID), .integer(step)]) == 1
            }
            return stored ? .totp : .replayed
        case .replayed:
            return .replayed
        case .wrong:
            guard let digest = RecoveryCodes.digest(code) else { return .wrong }
            let used = try await database.write { connection in
                try connection.run(
                    """
                    UPDATE owner_recovery_codes SET used_at = ?
                    WHERE owner_id = ? AND digest = ? AND used_at IS NULL
                    """, [.integer(now), .text(ownerID), .blob(digest)]) == 1
            }
            return used ? .recoveryCode : .wrong
        }
    }

    /// A new set of recovery codes for `ownerID` (the old ones stop working); nil when their second factor is not on.
    /// - Throws: storage errors.
    public func regenerateRecoveryCodes(ownerID: String) async throws -> [String]? {
        let codes = RecoveryCodes.generate()
        let now = clock()
        let made = try await database.write { connection in
            try connection.transaction {
                guard try connection.query(
                    "SELECT 1 AS one FROM owner_totp WHERE owner_id = ? AND confirmed_at IS NOT NULL", [.text(ownerID)]
                ).first != nil else { return false }
                try Self.replaceRecoveryCodes(codes, ownerID: ownerID, now: now, connection)
                return true
            }
        }
        return made ? codes : nil
    }

    /// Turns `ownerID`'s second factor off: the secret and the recovery codes are deleted. The owner's own choice
    /// (with a fresh proof) or the operator's reset (`postern owner mfa reset`).
    /// - Returns: whether there was one (on or waiting).
    /// - Throws: storage errors.
    @discardableResult
    public func remove(ownerID: String) async throws -> Bool {
        try await database.write { connection in
            try connection.transaction {
                try connection.run("DELETE FROM owner_recovery_codes WHERE owner_id = ?", [.text(ownerID)])
                return try connection.run("DELETE FROM owner_totp WHERE owner_id = ?", [.text(ownerID)]) > 0
            }
        }
    }

    // MARK: - Rows

    private func row(_ ownerID: String) async throws -> (secret: [UInt8], confirmed: Bool, lastStep: Int64?)? {
        let found = try await database.read { connection in
            try connection.query(
                "SELECT secret, confirmed_at, last_step FROM owner_totp WHERE owner_id = ?", [.text(ownerID)]
            ).first.map { ($0.blob("secret") ?? [], $0.int("confirmed_at") != nil, $0.int("last_step")) }
        }
        guard let found else { return nil }
        return (try opened(found.0, ownerID: ownerID), found.1, found.2)
    }

    private static func replaceRecoveryCodes(
        _ codes: [String], ownerID: String, now: Int64, _ connection: any SQLConnection
    ) throws {
        try connection.run("DELETE FROM owner_recovery_codes WHERE owner_id = ?", [.text(ownerID)])
        for code in codes {
            guard let digest = RecoveryCodes.digest(code) else { continue }
            try connection.run(
                "INSERT INTO owner_recovery_codes (owner_id, digest, created_at) VALUES (?, ?, ?)",
                [.text(ownerID), .blob(digest), .integer(now)])
        }
    }

    private func sealed(_ secret: [UInt8], ownerID: String) throws -> [UInt8] {
        guard let sealing else { return secret }
        return try sealing.seal(secret, Self.binding(ownerID))
    }

    private func opened(_ stored: [UInt8], ownerID: String) throws -> [UInt8] {
        guard let sealing else { return stored }
        return try sealing.open(stored, Self.binding(ownerID))
    }

    private static func binding(_ ownerID: String) -> [UInt8] { Array("postern owner totp \(ownerID)".utf8) }
}
