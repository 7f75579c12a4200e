import AuthCrypto
import Dispatch
import JWT
import Storage
import Synchronization

/// The signing keys of every Postern instance on one database (`signing_keys`, migration 0009, and
/// `signing_keys_p256`, migration 0080), used when
/// the database is PostgreSQL so that a token minted by one instance verifies on every other.
///
/// The first instance to start generates an RSA-2048 key, an Ed25519 key, a P-256 key and a 32-byte HMAC secret (a ring
/// made before Ed25519 or P-256 keys existed gets them from the first instance that knows them), sealed with AES-256-GCM
/// under a key derived from `POSTERN_KEY_SECRET` (``KeySealer``), inside one transaction under an advisory
/// lock, so instances starting together end with one key ring. A rotation publishes new keys at once (they
/// verify and are in the JWKS) but lets them sign only `promotionDelay` seconds later, once every instance has
/// reloaded and every client's cached JWKS has expired; the keys they replace keep verifying for `retention`
/// seconds after and are then deleted; `retireNow(kid:now:)` deletes a leaked key at once. Every instance reloads on
/// a notification (``reloadSoon()``, from PostgreSQL's `NOTIFY postern_keys` sent by the rotating or retiring
/// transaction), on its poll (``reload(now:)``), and when a token names a kid it does not know (at most once a second).
///
/// `JWT_PRIVATE_KEY`, when given, signs RS256 in place of the ring's RSA key on this instance (set it on
/// every instance or on none); the ring's HMAC, Ed25519 and P-256 keys are used either way.
public final class DatabaseKeyStore: KeyRingUpdating {
    /// The shortest `POSTERN_KEY_SECRET` accepted, in bytes.
    public static let minimumSecretLength = KeySealer.minimumSecretLength
    /// The channel rotations notify (`LISTEN postern_keys`).
    public static let notificationChannel = "postern_keys"
    /// How long a retired key keeps verifying: the longest token TTL plus the verification leeway.
    public let retention: Int64
    /// How long a new key of a rotation is published before it signs.
    public let promotionDelay: Int64

    private let database: any SQLDatabase
    private let sealer: KeySealer
    let environmentKey: JWTKey?
    private let openedAt: Int64
    private let clock: @Sendable () -> Int64
    private let state: Mutex<State>
    private let published = JWTKeySet()
    private let reloads = DispatchQueue(label: "postern.keys.reload")
    private let updating = Mutex(())
    private static let lockID: Int64 = 0x706f_7374_6572_6e01

    private struct State {
        var schedule = KeySchedule([])
        /// Opened keys by kid, so a reload opens only keys it has not seen.
        var keys: [String: JWTKey] = [:]
        var reloadQueued = false
        var lastUnknownKIDReload: Int64 = .min
    }

    /// Opens the ring of `database`, creating its keys when it has none.
    /// - Parameters:
    ///   - database: a migrated database (migrations 0009 and 0011).
    ///   - secret: `POSTERN_KEY_SECRET`, at least 16 bytes.
    ///   - environmentPrivatePEM: `JWT_PRIVATE_KEY`; nil or empty when unset.
    ///   - environmentPublicPEM: `JWT_PUBLIC_KEY`; must match the private key when both are set.
    ///   - maxTokenTTL: the longest lifetime of any token signed with these keys, in seconds.
    ///   - promotionDelay: seconds between publishing a rotated key and signing with it.
    ///   - clock: Unix seconds now, for reloads started by notifications and unknown kids.
    /// - Throws: `KeyStoreError` `.configuration` (secret, environment keys, keys sealed under another secret),
    ///   `.corrupt`, `.database`.
    public convenience init(
        database: any SQLDatabase, secret: String, environmentPrivatePEM: String?, environmentPublicPEM: String?,
        maxTokenTTL: Int64, promotionDelay: Int64, clock: @escaping @Sendable () -> Int64
    ) throws(KeyStoreError) {
        try self.init(
            database: database, sealer: KeySealer(secret: secret, database: database),
            environmentPrivatePEM: environmentPrivatePEM, environmentPublicPEM: environmentPublicPEM,
            maxTokenTTL: maxTokenTTL, promotionDelay: promotionDelay, clock: clock)
    }

    /// Opens the ring of `database` as ``init(database:secret:environmentPrivatePEM:environmentPublicPEM:maxTokenTTL:promotionDelay:clock:)``
    /// does, its keys sealed with `sealer` (made once at start and shared with the DKIM keys' store).
    public init(
        database: any SQLDatabase, sealer: KeySealer, environmentPrivatePEM: String?, environmentPublicPEM: String?,
        maxTokenTTL: Int64, promotionDelay: Int64, clock: @escaping @Sendable () -> Int64
    ) throws(KeyStoreError) {
        guard maxTokenTTL > 0 else { throw KeyStoreError(.configuration, "maxTokenTTL must be positive") }
        guard promotionDelay >= 0 else {
            throw KeyStoreError(.configuration, "the promotion delay must not be negative")
        }
        self.database = database
        self.sealer = sealer
        environmentKey = try EnvironmentKey.parse(private: environmentPrivatePEM, public: environmentPublicPEM)
        retention = maxTokenTTL + JWTKeySet.maximumLeeway
        self.promotionDelay = promotionDelay
        self.clock = clock
        openedAt = clock()
        state = Mutex(State())
        try update(now: openedAt, rotating: false, dropping: nil)
        published.observeUnknownKIDs { [weak self] _ in self?.reloadForUnknownKID() }
    }

    public func keySet() -> JWTKeySet { published }

    /// Reloads on the store's own queue, soon; calls made while one is queued join it.
    public func reloadSoon() {
        let queue = state.withLock { state in
            defer { state.reloadQueued = true }
            return !state.reloadQueued
        }
        guard queue else { return }
        reloads.async { [weak self] in
            guard let self else { return }
            self.state.withLock { $0.reloadQueued = false }
            try? self.reload(now: self.clock())
        }
    }

    private func reloadForUnknownKID() {
        let now = clock()
        let due = state.withLock { state in
            guard state.lastUnknownKIDReload < now else { return false }
            state.lastUnknownKIDReload = now
            return true
        }
        if due { reloadSoon() }
    }

    public func list() -> [KeyInfo] {
        let now = clock()
        return state.withLock { state in
            var infos = environmentKey.map { [KeyInfo(environmentKey: $0, openedAt: openedAt)] } ?? []
            let schedule = state.schedule
            for entry in schedule.entries.sorted(by: Self.madeBefore) {
                let retiredAt = schedule.retiredAt(entry, at: now)
                let active =
                    (entry.kind != .rsa || environmentKey == nil) && schedule.active(entry.kind, at: now) == entry
                infos.append(
                    KeyInfo(
                        kid: entry.kid, kind: entry.kind, source: .database, createdAt: entry.createdAt,
                        retiredAt: retiredAt, dropsAt: retiredAt.map { $0 + retention }, isActive: active,
                        signsFrom: entry.signsFrom > now ? entry.signsFrom : nil))
            }
            return infos
        }
    }

    // MARK: Synchronizing with the database

    /// Synchronizes with the database and publishes the new key set (``KeyRingUpdating``: ``rotate(now:)``,
    /// ``retireNow(kid:now:)``, ``reload(now:)``). One at a time (``updating``), so that a reload that read the ring
    /// before a rotation never publishes after one that read it since; keys are opened outside the state lock that
    /// request threads take.
    func update(now: Int64, rotating: Bool, dropping kid: String?) throws(KeyStoreError) {
        try updating.withLock { _ throws(KeyStoreError) in
            let (schedule, sealed) = try synchronize(now: now, rotating: rotating, dropping: kid)
            let known = state.withLock { $0.keys }
            var keys: [String: JWTKey] = [:]
            for entry in schedule.entries {
                if let key = known[entry.kid] {
                    keys[entry.kid] = key
                } else if let material = sealed[entry.kid] {
                    keys[entry.kid] = try open(entry, material)
                }
            }
            let set = try buildKeySet(schedule, keys, now: now)
            state.withLock { state in
                state.schedule = schedule
                state.keys = keys
            }
            published.replace(with: set)
        }
    }

    /// Waits for a reload already queued (by a notification or an unknown kid) to finish: before the database
    /// closes at shutdown.
    public func finishReloads() {
        reloads.sync {}
    }

    /// In one transaction: reads the ring, deletes expired keys (and the key `kid` retired now, when given), generates
    /// what is missing or rotated, notifies other instances of a change. Returns the ring and the sealed material of
    /// every key.
    private func synchronize(now: Int64, rotating: Bool, dropping kid: String?) throws(KeyStoreError)
        -> (KeySchedule, [String: [UInt8]])
    {
        let kinds: [KeyInfo.Kind] = environmentKey == nil ? [.hmac, .rsa, .ed25519, .p256] : [.hmac, .ed25519, .p256]
        let database = database
        let retention = retention
        do {
            // The keys the transaction will probably add are made before it: an RSA key takes a quarter of a CPU-second
            // here and several on a busy machine, and inside the transaction that time would hold SQLite's one writer
            // (other instances starting at once wait past their busy timeout) or PostgreSQL's lock. A key the
            // transaction finds it does not need is dropped; one it needs and was not foreseen is made inside, as before.
            var spares = try makeSpares(kinds: kinds, now: now, rotating: rotating, dropping: kid)
            return try database.writeSync { connection in
                // The lock is taken before BEGIN: a SERIALIZABLE transaction sees the data as of its first
                // statement, so one that waited for the lock inside would read the ring from before the rotation it
                // waited for.
                try connection.withDatabaseLock(Self.lockID) {
                    try connection.transaction { () throws -> (KeySchedule, [String: [UInt8]]) in
                        var (entries, sealed) = try Self.read(connection)
                        let expired = KeySchedule(entries).expired(at: now, retention: retention)
                        for entry in expired { try Self.delete(entry, connection) }
                        entries.removeAll { expired.contains($0) }
                        var changed = !expired.isEmpty
                        func add(_ kind: KeyInfo.Kind, signsFrom: Int64) throws {
                            let (entry, material) = try self.generate(
                                kind, now: now, signsFrom: signsFrom,
                                generation: (entries.map(\.generation).max() ?? 0) + 1,
                                spare: spares.removeValue(forKey: kind))
                            try Self.insert(entry, sealed: material, connection)
                            entries.append(entry)
                            sealed[entry.kid] = material
                            changed = true
                        }
                        if let kid {
                            guard let leaked = entries.first(where: { $0.kid == kid }) else {
                                throw Self.unknownKey(kid)
                            }
                            let signing = KeySchedule(entries).active(leaked.kind, at: now) == leaked
                            try Self.delete(leaked, connection)
                            entries.removeAll { $0 == leaked }
                            changed = true
                            // Its successor signs now: without one, the key it replaced would sign again.
                            if signing && kinds.contains(leaked.kind) { try add(leaked.kind, signsFrom: now) }
                        }
                        for kind in kinds {
                            let hasKey = entries.contains { $0.kind == kind }
                            guard rotating || !hasKey else { continue }
                            try add(kind, signsFrom: hasKey ? now + self.promotionDelay : now)
                        }
                        if changed { try connection.notify(Self.notificationChannel) }
                        return (KeySchedule(entries), sealed)
                    }
                }
            }
        } catch let error as KeyStoreError {
            throw error
        } catch {
            throw KeyStoreError(.database, "the signing keys could not be read or written: \(error)")
        }
    }

    /// The table a key is a row of: P-256 keys have `signing_keys_p256` (migration 0080) to themselves, since the
    /// release before reads every row of `signing_keys` and refuses a kind it does not know (a rolling upgrade runs
    /// both on one ring); the other kinds are rows of `signing_keys`, which names each row's kind.
    enum Table: String, CaseIterable {
        case signingKeys = "signing_keys"
        case p256 = "signing_keys_p256"

        /// The table of a key of `kind`.
        init(_ kind: KeyInfo.Kind) { self = kind == .p256 ? .p256 : .signingKeys }

        /// The kind every row has when the table holds one kind only; nil when a `kind` column names each row's.
        var onlyKind: KeyInfo.Kind? {
            switch self {
            case .signingKeys: nil
            case .p256: .p256
            }
        }
    }

    /// Every key of the ring, from both tables.
    private static func read(_ connection: any SQLConnection) throws -> ([KeySchedule.Entry], [String: [UInt8]]) {
        var entries: [KeySchedule.Entry] = []
        var sealed: [String: [UInt8]] = [:]
        let columns = "kid, created_at, signs_from, generation, sealed"
        for table in Table.allCases {
            let selected = table.onlyKind == nil ? "kind, " + columns : columns
            for row in try connection.query("SELECT \(selected) FROM \(table.rawValue)", []) {
                guard let kid = row.text("kid"), JWTKey.isValidKID(kid),
                    let kind = table.onlyKind ?? row.text("kind").flatMap(KeyInfo.Kind.init(rawValue:)),
                    let createdAt = row.int("created_at"), let signsFrom = row.int("signs_from"),
                    let generation = row.int("generation"), let material = row.blob("sealed"), sealed[kid] == nil
                else { throw KeyStoreError(.corrupt, "signing_keys holds a row that is not a key") }
                entries.append(
                    KeySchedule.Entry(
                        kid: kid, kind: kind, createdAt: createdAt, signsFrom: signsFrom, generation: generation))
                sealed[kid] = material
            }
        }
        return (entries, sealed)
    }

    /// The order keys were made in, the same on every instance: by generation, then kid (a release before 0080 counts
    /// generations in `signing_keys` alone, so during a rolling upgrade one of its keys may share a P-256 key's).
    static func madeBefore(_ a: KeySchedule.Entry, _ b: KeySchedule.Entry) -> Bool {
        (a.generation, a.kid) < (b.generation, b.kid)
    }

    /// Writes `entry`, sealed as `sealed`, into its kind's table.
    private static func insert(_ entry: KeySchedule.Entry, sealed: [UInt8], _ connection: any SQLConnection) throws {
        var columns = "kid, created_at, signs_from, generation, sealed"
        var values: [SQLValue] = [
            .text(entry.kid), .integer(entry.createdAt), .integer(entry.signsFrom), .integer(entry.generation),
            .blob(sealed),
        ]
        let table = Table(entry.kind)
        if table.onlyKind == nil {
            columns += ", kind"
            values.append(.text(entry.kind.rawValue))
        }
        let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
        try connection.run("INSERT INTO \(table.rawValue) (\(columns)) VALUES (\(marks))", values)
    }

    private static func delete(_ entry: KeySchedule.Entry, _ connection: any SQLConnection) throws {
        try connection.run("DELETE FROM \(Table(entry.kind).rawValue) WHERE kid = ?", [.text(entry.kid)])
    }

    /// A key of `kind` for the ring: `spare` (made by ``makeSpares(kinds:now:rotating:dropping:)``) when given, else
    /// one made now. Its entry and its sealed material.
    private func generate(
        _ kind: KeyInfo.Kind, now: Int64, signsFrom: Int64, generation: Int64, spare: Spare? = nil
    ) throws(KeyStoreError) -> (KeySchedule.Entry, [UInt8]) {
        let made: Spare
        if let spare { made = spare } else { made = try makeSpare(kind) }
        let entry = KeySchedule.Entry(
            kid: made.kid, kind: kind, createdAt: now, signsFrom: signsFrom, generation: generation)
        return (entry, made.sealed)
    }

    /// A key made and sealed ahead of the transaction that may add it.
    private struct Spare {
        let kid: String
        let sealed: [UInt8]
    }

    private func makeSpare(_ kind: KeyInfo.Kind) throws(KeyStoreError) -> Spare {
        let (kid, material) = try KeyMaterial.generate(kind)
        return Spare(kid: kid, sealed: try sealer.seal(material, kid: kid, kind: kind))
    }

    /// The keys ``synchronize(now:rotating:dropping:)`` will add if the ring stays as it reads now (outside any
    /// transaction): every kind when rotating, the kind of a key dropped, and each kind the ring lacks.
    private func makeSpares(kinds: [KeyInfo.Kind], now: Int64, rotating: Bool, dropping kid: String?) throws
        -> [KeyInfo.Kind: Spare]
    {
        let entries = try database.readSync { try Self.read($0).0 }
        var wanted = Set(kinds.filter { kind in rotating || !entries.contains { $0.kind == kind } })
        if let kid, let dropped = entries.first(where: { $0.kid == kid }), kinds.contains(dropped.kind) {
            wanted.insert(dropped.kind)
        }
        var spares: [KeyInfo.Kind: Spare] = [:]
        for kind in wanted { spares[kind] = try makeSpare(kind) }
        return spares
    }

    private func open(_ entry: KeySchedule.Entry, _ sealed: [UInt8]) throws(KeyStoreError) -> JWTKey {
        let material = try sealer.open(sealed, kid: entry.kid, kind: entry.kind)
        return try KeyMaterial.key(
            kid: entry.kid, kind: entry.kind, material: material, origin: "signing key \(entry.kid)")
    }

    private func buildKeySet(_ schedule: KeySchedule, _ keys: [String: JWTKey], now: Int64) throws(KeyStoreError)
        -> JWTKeySet
    {
        var ordered: [JWTKey] = environmentKey.map { [$0] } ?? []
        ordered += schedule.entries.sorted(by: Self.madeBefore).compactMap { entry in
            entry.kid == environmentKey?.kid ? nil : keys[entry.kid]
        }
        do throws(JWTError) {
            return try JWTKeySet(
                keys: ordered, activeHMAC: schedule.active(.hmac, at: now)?.kid,
                activeRSA: environmentKey?.kid ?? schedule.active(.rsa, at: now)?.kid,
                activeEdDSA: schedule.active(.ed25519, at: now)?.kid, activeES256: schedule.active(.p256, at: now)?.kid)
        } catch {
            throw KeyStoreError(.corrupt, "signing_keys: \(error.reason)")
        }
    }
}
