import AuthCrypto
import JSON
import JWT
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The signing keys of one Postern instance, kept in `<data dir>/keys/`.
///
/// On first start it generates an RSA-2048 key, an Ed25519 key and a P-256 key (each `<kid>.pem`, PKCS#8) and a 32-byte HMAC
/// secret (`<kid>.hmac`, hex) with mode 0600 in a 0700 directory, recorded in `keys.json`
/// (`kid`, `kind`, `created_at`, `retired_at`), but for the P-256 keys, recorded the same way in `keys-p256.json`: the
/// release before them refuses a kind it does not know in `keys.json`, so a rollback, or its `postern keys` on the
/// same directory, keeps reading it (as migration 0080's table of their own does on PostgreSQL); later starts load
/// the same keys. `rotate(now:)` retires
/// the active keys and adds new ones; a retired key keeps verifying and stays in the JWKS until
/// `retired_at + maxTokenTTL + 30 s`, then is dropped (from the set, the metadata and the disk); `retireNow(kid:now:)`
/// drops a leaked key at once. A directory made
/// before Ed25519 or P-256 keys existed gets one at its next start.
///
/// When `JWT_PRIVATE_KEY` is given it is the active RSA key (kid = its RFC 7638 thumbprint) and is
/// never written to disk; a previously generated RSA key is then retired. HMAC, Ed25519 and P-256 keys always
/// come from the data directory.
///
/// The in-process state is guarded by a `Mutex`; the key directory by an `flock`.
public final class KeyStore: Sendable {
    /// The key directory (`<data dir>/keys`).
    public let keyDirectory: String
    /// How long a retired key stays: the longest token TTL plus the verification leeway.
    public let retention: Int64
    /// Whether this open found no key ring and generated one: on a data directory whose database already holds
    /// accounts, every token they were given is refused from now on (a restore that left the keys behind).
    public let generatedKeyRing: Bool

    let environmentKey: JWTKey?
    private let openedAt: Int64
    /// The records and key set last read from the directory; `published` follows its key set.
    private let state: Mutex<State>
    /// The one set handed out by `keySet()`; its contents follow every rotation and reload.
    private let published = JWTKeySet()

    private struct Record: Equatable {
        var kid: String
        var kind: KeyInfo.Kind
        var createdAt: Int64
        var retiredAt: Int64?
    }

    private struct State {
        var records: [Record]
        var keySet: JWTKeySet
    }

    /// Opens (and on first start creates) the keys of `directory`.
    /// - Parameters:
    ///   - directory: the data directory; keys live in its `keys/` subdirectory.
    ///   - environmentPrivatePEM: `JWT_PRIVATE_KEY`, PKCS#8 or PKCS#1 PEM; a literal `\n` means a
    ///     newline; nil or empty when unset.
    ///   - environmentPublicPEM: `JWT_PUBLIC_KEY`; must match the private key when both are set.
    ///   - maxTokenTTL: the longest lifetime of any token this instance signs, in seconds.
    ///   - now: the current time in Unix seconds.
    /// - Throws: `KeyStoreError` `.configuration` for unusable environment keys, `.corrupt` for a
    ///   damaged key directory, `.io` for file system failures.
    public init(
        directory: String, environmentPrivatePEM: String?, environmentPublicPEM: String?, maxTokenTTL: Int64,
        now: Int64
    ) throws(KeyStoreError) {
        guard maxTokenTTL > 0 else { throw KeyStoreError(.configuration, "maxTokenTTL must be positive") }
        keyDirectory = (directory.hasSuffix("/") ? String(directory.dropLast()) : directory) + "/keys"
        retention = maxTokenTTL + JWTKeySet.maximumLeeway
        openedAt = now
        environmentKey = try EnvironmentKey.parse(private: environmentPrivatePEM, public: environmentPublicPEM)
        try KeyFiles.makeDirectory(keyDirectory, mode: 0o700)
        generatedKeyRing = try KeyFiles.readFile(keyDirectory + "/keys.json", limit: 1024 * 1024) == nil
        state = Mutex(State(records: [], keySet: JWTKeySet()))
        try update(now: now, rotating: false, dropping: nil)
    }

    /// The key set. Always the same instance, whose keys follow ``rotate(now:)`` and ``reload(now:)``, so
    /// that services holding it sign with the new key and stop verifying dropped ones without a restart.
    public func keySet() -> JWTKeySet {
        published
    }

    /// Synchronizes with the directory and publishes the new key set, so that every holder of
    /// `keySet()` sees the change (``KeyRingUpdating``: ``rotate(now:)``, ``retireNow(kid:now:)``, ``reload(now:)``).
    func update(now: Int64, rotating: Bool, dropping kid: String?) throws(KeyStoreError) {
        try state.withLock { (state) throws(KeyStoreError) in
            state = try synchronize(now: now, rotating: rotating, dropping: kid)
            published.replace(with: state.keySet)
        }
    }

    /// Every key in the set, the environment key first, then by creation.
    public func list() -> [KeyInfo] {
        state.withLock { state in
            let set = state.keySet
            var infos = environmentKey.map { [KeyInfo(environmentKey: $0, openedAt: openedAt)] } ?? []
            for record in state.records where record.kid != environmentKey?.kid {
                let active = set.activeKID(for: record.kind.algorithm) == record.kid
                infos.append(
                    KeyInfo(
                        kid: record.kid, kind: record.kind, source: .dataDirectory, createdAt: record.createdAt,
                        retiredAt: record.retiredAt, dropsAt: record.retiredAt.map { $0 + retention },
                        isActive: active))
            }
            return infos
        }
    }

    /// The files of `<directory>/keys` (the metadata and every key file, by name), read under the directory lock, so
    /// that a rotation running meanwhile is copied whole or not at all. Empty when there is no key directory.
    /// - Throws: `KeyStoreError` `.io` for file system failures.
    public static func files(ofDataDirectory directory: String) throws(KeyStoreError) -> [(name: String, bytes: [UInt8])] {
        let keyDirectory = (directory.hasSuffix("/") ? String(directory.dropLast()) : directory) + "/keys"
        guard let names = KeyFiles.names(in: keyDirectory) else { return [] }
        return try KeyFiles.withExclusiveLock(keyDirectory + "/.lock") { () throws(KeyStoreError) in
            var files: [(name: String, bytes: [UInt8])] = []
            for name in names.sorted() {
                if let bytes = try KeyFiles.readFile(keyDirectory + "/" + name, limit: 1024 * 1024) {
                    files.append((name, bytes))
                }
            }
            return files
        }
    }

    // MARK: Synchronizing with the directory

    private var metadataPath: String { keyDirectory + "/keys.json" }
    /// The P-256 keys' records, out of `keys.json`, whose readers before them refuse the kind.
    private var p256MetadataPath: String { keyDirectory + "/keys-p256.json" }
    private func path(_ record: Record) -> String {
        keyDirectory + "/" + record.kid + (record.kind == .hmac ? ".hmac" : ".pem")
    }

    /// Reads the directory, applies rotation, retirement and pruning (and drops the key `kid` now, when given),
    /// generates missing keys, writes what changed and builds the key set; all under the directory lock.
    private func synchronize(now: Int64, rotating: Bool, dropping kid: String?) throws(KeyStoreError) -> State {
        try KeyFiles.withExclusiveLock(keyDirectory + "/.lock") { () throws(KeyStoreError) -> State in
            let original = try readMetadata()
            var records = original.all
            if let kid, !records.contains(where: { $0.kid == kid }) { throw Self.unknownKey(kid) }
            for index in records.indices where records[index].retiredAt == nil {
                // Rotation retires every active key; an environment RSA key retires generated RSA keys.
                if rotating || (records[index].kind == .rsa && environmentKey != nil) {
                    records[index].retiredAt = now
                }
            }
            // A key retired now leaves with the expired ones; the active key of its kind is then made below.
            let expired = records.filter { record in
                record.kid == kid || (record.retiredAt.map { $0 + retention < now } ?? false)
            }
            records.removeAll { expired.contains($0) }

            if !records.contains(where: { $0.kind == .hmac && $0.retiredAt == nil }) {
                let (kid, secret) = try KeyMaterial.generate(.hmac)
                let record = Record(kid: kid, kind: .hmac, createdAt: now)
                // Kept in its file as hex text (decoded when the key is read).
                try KeyFiles.createPrivate(path(record), Array((Hex.encode(secret) + "\n").utf8))
                records.append(record)
            }
            if environmentKey == nil, !records.contains(where: { $0.kind == .rsa && $0.retiredAt == nil }) {
                let (kid, pem) = try KeyMaterial.generate(.rsa)
                let record = Record(kid: kid, kind: .rsa, createdAt: now)
                try KeyFiles.createPrivate(path(record), pem)
                records.append(record)
            }
            for kind in [KeyInfo.Kind.ed25519, .p256]
            where !records.contains(where: { $0.kind == kind && $0.retiredAt == nil }) {
                let (kid, pem) = try KeyMaterial.generate(kind)
                let record = Record(kid: kid, kind: kind, createdAt: now)
                try KeyFiles.createPrivate(path(record), pem)
                records.append(record)
            }
            let p256 = records.filter { $0.kind == .p256 }
            if p256 != original.p256 {
                try KeyFiles.replacePrivate(p256MetadataPath, Self.encode(p256), directory: keyDirectory)
            }
            let others = records.filter { $0.kind != .p256 }
            if others != original.others {
                try KeyFiles.replacePrivate(metadataPath, Self.encode(others), directory: keyDirectory)
            }
            // Only after the metadata no longer names them.
            for record in expired { KeyFiles.remove(path(record)) }
            return State(records: records, keySet: try buildKeySet(records))
        }
    }

    private func buildKeySet(_ records: [Record]) throws(KeyStoreError) -> JWTKeySet {
        var keys: [JWTKey] = []
        var activeHMAC: String?
        var activeRSA: String?
        var activeEdDSA: String?
        var activeES256: String?
        if let environmentKey {
            keys.append(environmentKey)
            activeRSA = environmentKey.kid
        }
        // Newest active record of each kind signs (several active records only after hand edits).
        for record in records.sorted(by: { $0.createdAt < $1.createdAt }) where record.kid != environmentKey?.kid {
            keys.append(try loadKey(record))
            if record.retiredAt == nil {
                switch record.kind {
                case .hmac: activeHMAC = record.kid
                case .ed25519: activeEdDSA = record.kid
                case .p256: activeES256 = record.kid
                case .rsa: if environmentKey == nil { activeRSA = record.kid }
                }
            }
        }
        do throws(JWTError) {
            return try JWTKeySet(
                keys: keys, activeHMAC: activeHMAC, activeRSA: activeRSA, activeEdDSA: activeEdDSA,
                activeES256: activeES256)
        } catch {
            throw KeyStoreError(.corrupt, "\(keyDirectory): \(error.reason)")
        }
    }

    private func loadKey(_ record: Record) throws(KeyStoreError) -> JWTKey {
        let file = path(record)
        guard let contents = try KeyFiles.readFile(file) else {
            throw KeyStoreError(.corrupt, "\(file) is listed in the key metadata but missing")
        }
        var material = contents
        if record.kind == .hmac {
            guard let secret = Hex.decode(String(decoding: contents, as: UTF8.self).trimmingWhitespace()) else {
                throw KeyStoreError(.corrupt, "\(file) is not a hex secret")
            }
            material = secret
        }
        return try KeyMaterial.key(kid: record.kid, kind: record.kind, material: material, origin: file)
    }

    // MARK: Metadata file

    /// The records of `keys.json` (`others`) and `keys-p256.json` (`p256`), and `all` of them by creation (`keys.json`'s
    /// first at a tie); a kid is in one file only.
    private func readMetadata() throws(KeyStoreError) -> (all: [Record], others: [Record], p256: [Record]) {
        let others = try readMetadata(metadataPath)
        if others.contains(where: { $0.kind == .p256 }) {
            // Only a development build of issue 88 wrote one there; no release did.
            throw KeyStoreError(
                .corrupt,
                "\(metadataPath) holds a P-256 key, which belongs in keys-p256.json: remove its entry and its file, "
                    + "and the next start makes a new one")
        }
        let p256 = try readMetadata(p256MetadataPath)
        guard p256.allSatisfy({ $0.kind == .p256 }) else {
            throw KeyStoreError(.corrupt, "\(p256MetadataPath) holds a key that is not P-256")
        }
        let kids = Set(others.map(\.kid))
        guard !p256.contains(where: { kids.contains($0.kid) }) else {
            throw KeyStoreError(.corrupt, "\(p256MetadataPath) names a key keys.json names too")
        }
        let all = (others + p256).enumerated()
            .sorted { ($0.element.createdAt, $0.offset) < ($1.element.createdAt, $1.offset) }.map(\.element)
        return (all, others, p256)
    }

    private func readMetadata(_ metadataPath: String) throws(KeyStoreError) -> [Record] {
        guard let bytes = try KeyFiles.readFile(metadataPath, limit: 1024 * 1024) else { return [] }
        let corrupt = KeyStoreError(.corrupt, "\(metadataPath) is not valid key metadata")
        guard let document = try? JSONValue.parse(bytes, limits: .init(maximumBytes: 1024 * 1024, maximumDepth: 4)),
            document["version"]?.intValue == 1, let entries = document["keys"]?.arrayValue
        else { throw corrupt }
        var records: [Record] = []
        var kids = Set<String>()
        for entry in entries {
            guard let kid = entry["kid"]?.stringValue, JWTKey.isValidKID(kid), kids.insert(kid).inserted,
                let kind = entry["kind"]?.stringValue.flatMap(KeyInfo.Kind.init(rawValue:)),
                let createdAt = entry["created_at"]?.intValue
            else { throw corrupt }
            let retiredAt: Int64?
            switch entry["retired_at"] {
            case nil, .null?: retiredAt = nil
            case .int(let value)?: retiredAt = value
            default: throw corrupt
            }
            records.append(Record(kid: kid, kind: kind, createdAt: createdAt, retiredAt: retiredAt))
        }
        return records
    }

    private static func encode(_ records: [Record]) -> [UInt8] {
        let entries: [JSONValue] = records.map { record in
            [
                "kid": .string(record.kid), "kind": .string(record.kind.rawValue), "created_at": .int(record.createdAt),
                "retired_at": record.retiredAt.map(JSONValue.int) ?? .null,
            ]
        }
        return JSONValue.object([("version", 1), ("keys", .array(entries))]).serialize() + [0x0a]
    }
}

extension String {
    /// The text without leading and trailing spaces, tabs, carriage returns and newlines.
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[start...end])
    }
}
