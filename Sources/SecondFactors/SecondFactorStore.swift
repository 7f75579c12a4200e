import AuthCrypto
import Storage
import TOTP

/// A second factor (issue 88 item 3), written once and mounted for each family of people who sign in (owners,
/// migration 0074; Pro users, migration 0081; ``SecondFactorTables``): a TOTP secret (RFC 6238) set up, confirmed by
/// a first code, checked with the one-step window and the replay rule (``TOTP``: the last accepted step is stored and
/// the store's conditional update refuses it again, whichever instance sees the code), and ten recovery codes stored
/// as SHA-256 digests, each used once. A holder is the family's id of the person (an owner's, a Pro user's).
public struct SecondFactorStore: Sendable {
    /// Whose factors: the family's two tables and the sealing binding.
    public let tables: SecondFactorTables
    let database: any SQLDatabase
    let sealing: SecretSealing?
    let clock: @Sendable () -> Int64
    /// What turning the factor on ends (``SecondFactorSessions``); nil for a store that never turns one on (the
    /// operator's resets).
    let sessions: (any SecondFactorSessions)?
    /// The codes' parameters (30 s, 6 digits, one step either side).
    public let totp = TOTP()
    /// Bytes of a new secret: 160 bits, RFC 4226's recommendation for HMAC-SHA1.
    static let secretBytes = 20

    /// - Parameters:
    ///   - tables: the family's tables (``SecondFactorTables/owners``, ``SecondFactorTables/proUsers``).
    ///   - database: a database with the family's migration applied (0074 for owners, 0081 for Pro users).
    ///   - sealing: how the secret is sealed at rest; nil keeps it in the clear (SQLite).
    ///   - clock: Unix seconds.
    ///   - sessions: the family's sessions, which turning a factor on ends but the one that did it; nil only for a
    ///     store that turns none on (the operator's resets).
    public init(
        _ tables: SecondFactorTables, database: any SQLDatabase, sealing: SecretSealing?,
        clock: @escaping @Sendable () -> Int64, sessions: (any SecondFactorSessions)? = nil
    ) {
        self.tables = tables
        self.database = database
        self.sealing = sealing
        self.clock = clock
        self.sessions = sessions
    }

    /// This store, ending `sessions` when a factor is turned on (a family whose sessions are built after its store).
    public func ending(_ sessions: any SecondFactorSessions) -> SecondFactorStore {
        SecondFactorStore(tables, database: database, sealing: sealing, clock: clock, sessions: sessions)
    }

    /// Where a holder's second factor stands.
    public enum State: Equatable, Sendable {
        /// None.
        case off
        /// Set up, waiting for a first code: it asks for nothing at sign-in yet.
        case pending
        /// On: a password sign-in asks for a code; `recoveryCodesLeft` unused recovery codes.
        case on(recoveryCodesLeft: Int)
    }

    /// `holder`'s state.
    /// - Throws: storage errors.
    public func state(holder: String) async throws -> State {
        try await database.read { connection in
            guard let row = try connection.query(
                "SELECT confirmed_at FROM \(t.totp) WHERE \(t.holder) = ?", [.text(holder)]
            ).first else { return .off }
            guard row.int("confirmed_at") != nil else { return .pending }
            let left = try connection.query(
                "SELECT COUNT(*) AS n FROM \(t.recoveryCodes) WHERE \(t.holder) = ? AND used_at IS NULL",
                [.text(holder)]
            ).first?.int("n") ?? 0
            return .on(recoveryCodesLeft: Int(left))
        }
    }

    /// A new secret for `holder`, waiting for its first code (replacing one that waited); nil when a confirmed one is
    /// on (it is turned off first).
    /// - Throws: storage and sealing errors.
    public func begin(holder: String) async throws -> [UInt8]? {
        let secret = SecureRandom.bytes(Self.secretBytes)
        let stored = try sealed(secret, holder: holder)
        let now = clock()
        let made = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO \(t.totp) (\(t.holder), secret, created_at) VALUES (?, ?, ?)
                ON CONFLICT (\(t.holder)) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at
                WHERE \(t.totp).confirmed_at IS NULL
                """, [.text(holder), .blob(stored), .integer(now)]) == 1
        }
        return made ? secret : nil
    }

    /// The secret of `holder` waiting for its first code: the one waiting, else a new one (``begin(holder:)``); nil
    /// when a confirmed one is on. What a setup page shows.
    /// - Throws: storage and sealing errors.
    public func secretToConfirm(holder: String) async throws -> [UInt8]? {
        if let waiting = try await pendingSecret(holder: holder) { return waiting }
        return try await begin(holder: holder)
    }

    /// The secret of `holder` waiting for its first code; nil when none waits.
    /// - Throws: storage and sealing errors.
    public func pendingSecret(holder: String) async throws -> [UInt8]? {
        guard let found = try await row(holder), !found.confirmed else { return nil }
        return found.secret
    }

    /// Turns the waiting secret on when `code` is its code now: the step is stored (that code signs nobody in), a new
    /// set of recovery codes is made, and the holder's other sessions end (``SecondFactorSessions``: all but
    /// `keeping`, the session cookie of the request that confirms; nil ends every one), all in one transaction.
    /// Returns the codes, to show once; nil for a wrong code or nothing waiting (nothing ends).
    /// - Throws: storage and sealing errors.
    public func confirm(holder: String, code: String, keeping: String? = nil) async throws -> [String]? {
        guard let secret = try await pendingSecret(holder: holder) else { return nil }
        let now = clock()
        guard case .accepted(let step) = totp.verify(code, secret: secret, now: now, lastStep: nil) else { return nil }
        let codes = RecoveryCodes.generate()
        let confirmed = try await database.write { connection in
            try connection.transaction {
                guard try connection.run(
                    "UPDATE \(t.totp) SET confirmed_at = ?, last_step = ? WHERE \(t.holder) = ? AND confirmed_at IS NULL",
                    [.integer(now), .integer(step), .text(holder)]) == 1
                else { return false }
                try replaceRecoveryCodes(codes, holder: holder, now: now, connection)
                try sessions?.endOthers(holder: holder, keeping: keeping, connection)
                return true
            }
        }
        return confirmed ? codes : nil
    }

    /// What a code typed at the second step came to.
    public enum Check: Equatable, Sendable {
        /// A TOTP code of the window, not used before.
        case totp
        /// One of the holder's unused recovery codes, now used.
        case recoveryCode
        /// A right code of a step already accepted.
        case replayed
        /// Neither (or no second factor on).
        case wrong
    }

    /// Checks `code` for `holder`: a TOTP code (accepted once: the step is stored only if it is later than the last
    /// one, in one conditional update) or else a recovery code (used once, in one conditional update).
    /// - Throws: storage and sealing errors.
    public func check(holder: String, code: String) async throws -> Check {
        guard let found = try await row(holder), found.confirmed else { return .wrong }
        let now = clock()
        switch totp.verify(code, secret: found.secret, now: now, lastStep: found.lastStep) {
        case .accepted(let step):
            let stored = try await database.write { connection in
                try connection.run(
                    """
                    UPDATE \(t.totp) SET last_step = ?
                    WHERE \(t.holder) = ? AND confirmed_at IS NOT NULL AND (last_step IS NULL OR last_step < ?)
                    """, [.integer(step), .text(holder), .integer(step)]) == 1
            }
            return stored ? .totp : .replayed
        case .replayed:
            return .replayed
        case .wrong:
            guard let digest = RecoveryCodes.digest(code) else { return .wrong }
            let used = try await database.write { connection in
                try connection.run(
                    """
                    UPDATE \(t.recoveryCodes) SET used_at = ?
                    WHERE \(t.holder) = ? AND digest = ? AND used_at IS NULL
                    """, [.integer(now), .text(holder), .blob(digest)]) == 1
            }
            return used ? .recoveryCode : .wrong
        }
    }

    /// A new set of recovery codes for `holder` (the old ones stop working); nil when their second factor is not on.
    /// - Throws: storage errors.
    public func regenerateRecoveryCodes(holder: String) async throws -> [String]? {
        let codes = RecoveryCodes.generate()
        let now = clock()
        let made = try await database.write { connection in
            try connection.transaction {
                guard try connection.query(
                    "SELECT 1 AS one FROM \(t.totp) WHERE \(t.holder) = ? AND confirmed_at IS NOT NULL", [.text(holder)]
                ).first != nil else { return false }
                try replaceRecoveryCodes(codes, holder: holder, now: now, connection)
                return true
            }
        }
        return made ? codes : nil
    }

    /// Turns `holder`'s second factor off: the secret and the recovery codes are deleted. The holder's own choice
    /// (with a fresh proof) or the operator's reset (`postern owner mfa reset`, `postern pro mfa reset`).
    /// - Returns: whether there was one (on or waiting).
    /// - Throws: storage errors.
    @discardableResult
    public func remove(holder: String) async throws -> Bool {
        try await database.write { connection in
            try connection.transaction {
                try connection.run("DELETE FROM \(t.recoveryCodes) WHERE \(t.holder) = ?", [.text(holder)])
                return try connection.run("DELETE FROM \(t.totp) WHERE \(t.holder) = ?", [.text(holder)]) > 0
            }
        }
    }

    /// What of `holder`'s second factor a half-done sign-in rests on, read on `connection` in the caller's read: the
    /// confirmed factor's secret as stored and when it was confirmed, as a SHA-256 (turned on or off, or set up again,
    /// it differs); nil with none on. A factor waiting for its first code asks for nothing at sign-in and counts as
    /// none.
    /// - Throws: storage errors.
    public func confirmedFactorStamp(holder: String, _ connection: any SQLConnection) throws -> [UInt8]? {
        guard let row = try connection.query(
            "SELECT secret, confirmed_at FROM \(t.totp) WHERE \(t.holder) = ? AND confirmed_at IS NOT NULL",
            [.text(holder)]
        ).first, let confirmed = row.int("confirmed_at") else { return nil }
        return SHA256.hash(Array("\(confirmed)\n".utf8) + (row.blob("secret") ?? []))
    }

    // MARK: - Rows

    /// The family's tables, as the SQL names them.
    private var t: SecondFactorTables { tables }

    private func row(_ holder: String) async throws -> (secret: [UInt8], confirmed: Bool, lastStep: Int64?)? {
        let found = try await database.read { connection in
            try connection.query(
                "SELECT secret, confirmed_at, last_step FROM \(t.totp) WHERE \(t.holder) = ?", [.text(holder)]
            ).first.map { ($0.blob("secret") ?? [], $0.int("confirmed_at") != nil, $0.int("last_step")) }
        }
        guard let found else { return nil }
        return (try opened(found.0, holder: holder), found.1, found.2)
    }

    private func replaceRecoveryCodes(
        _ codes: [String], holder: String, now: Int64, _ connection: any SQLConnection
    ) throws {
        try connection.run("DELETE FROM \(t.recoveryCodes) WHERE \(t.holder) = ?", [.text(holder)])
        for code in codes {
            guard let digest = RecoveryCodes.digest(code) else { continue }
            try connection.run(
                "INSERT INTO \(t.recoveryCodes) (\(t.holder), digest, created_at) VALUES (?, ?, ?)",
                [.text(holder), .blob(digest), .integer(now)])
        }
    }

    private func sealed(_ secret: [UInt8], holder: String) throws -> [UInt8] {
        guard let sealing else { return secret }
        return try sealing.seal(secret, binding(holder))
    }

    private func opened(_ stored: [UInt8], holder: String) throws -> [UInt8] {
        guard let sealing else { return stored }
        return try sealing.open(stored, binding(holder))
    }

    private func binding(_ holder: String) -> [UInt8] { Array("\(tables.binding) \(holder)".utf8) }
}

extension SecondFactorStore.State {
    /// Whether a second factor is on (confirmed).
    public var isOn: Bool {
        if case .on = self { true } else { false }
    }
}
