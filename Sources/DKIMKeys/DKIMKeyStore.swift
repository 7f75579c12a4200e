import AuthCrypto
import Foundation
import MailAuth
import SigningKeys
import Storage
import Synchronization

/// Every domain's DKIM keys (`dkim_keys`, migration 0035): an RSA-2048 key and an Ed25519 key (RFC 8463) per domain,
/// made the first time the domain needs them, rotated on the operator's word, and the DNS TXT records to publish.
///
/// Where the private keys are kept follows the token signing keys (Sources/SigningKeys): on PostgreSQL, shared by every
/// instance, sealed with AES-256-GCM under `POSTERN_KEY_SECRET` (``KeySealer``, bound to the key's algorithm, domain
/// and selector, so a sealed key moved to another row does not open); on SQLite in the clear, as PKCS#8 PEM, like the
/// data directory's key files (the database file lives in that directory, mode 0600).
///
/// The rows are read on every call, so a rotation by `postern dkim rotate` (another process) or by another instance
/// is used from the next message on; an opened key is kept in memory by its selector, so a message costs one small
/// query and no PEM parsing.
public final class DKIMKeyStore: Sendable {
    private let database: any SQLDatabase
    private let sealer: KeySealer?
    private let clock: @Sendable () -> Int64
    private let opened = Mutex<[String: DKIMSigningKey]>([:])

    /// Opens the keys of `database` (migrated through 0035).
    /// - Parameters:
    ///   - sealingSecret: `POSTERN_KEY_SECRET`: required (16 bytes or more) on PostgreSQL, unused on SQLite.
    ///   - clock: Unix seconds now: `created_at`, `retired_at`, the selectors' dates.
    /// - Throws: `DKIMKeyError` `.configuration` for a missing or short secret on PostgreSQL, `.database`.
    public init(database: any SQLDatabase, sealingSecret: String?, clock: @escaping @Sendable () -> Int64)
        throws(DKIMKeyError)
    {
        self.database = database
        self.clock = clock
        guard database.dialect == .postgres else {
            sealer = nil
            return
        }
        do throws(KeyStoreError) {
            sealer = try KeySealer(secret: sealingSecret ?? "", database: database)
        } catch {
            throw DKIMKeyError(error.code == .database ? .database : .configuration, error.reason)
        }
    }

    /// Opens the keys of `database` (migrated through 0035), sealed with `sealer`: the signing keys' (one scrypt
    /// derivation of `POSTERN_KEY_SECRET` at start serves both stores).
    public init(database: any SQLDatabase, sealer: KeySealer, clock: @escaping @Sendable () -> Int64) {
        self.database = database
        self.sealer = sealer
        self.clock = clock
    }

    /// The keys `domain` signs with now, RSA first: made (both, or the one missing) when it has none.
    /// - Throws: `DKIMKeyError` `.invalidDomain`, `.keyGeneration`, `.configuration` (a key that does not open with
    ///   the secret), `.corrupt`, `.database`.
    public func keys(for domain: String) throws(DKIMKeyError) -> [DKIMKey] {
        let domain = try Self.normalized(domain)
        var rows = try activeRows(domain)
        let missing = DKIMSigningKey.Algorithm.allCases.filter { algorithm in
            !rows.contains { $0.algorithm == algorithm }
        }
        if !missing.isEmpty {
            let made = try generate(missing, domain: domain, now: clock())
            try write("DKIM keys for \(domain) could not be stored") { connection in
                // Another instance may have made them meanwhile: the active index keeps its keys and drops ours.
                try connection.transaction {
                    for row in made { try Self.insert(row, connection, ifNoActiveKey: true) }
                }
            }
            rows = try activeRows(domain)
        }
        return try rows.map(open)
    }

    /// A signer for `domain` with its keys (both signatures on every message), `t=` from this store's clock.
    /// - Throws: as ``keys(for:)``.
    public func signer(for domain: String) throws(DKIMKeyError) -> DKIMSigner {
        let keys = try keys(for: domain)
        return DKIMSigner(domain: try Self.normalized(domain), keys: keys.map(\.signingKey), now: clock)
    }

    /// Retires `domain`'s keys and makes new ones under new selectors, which sign from now on (no publish-before-sign
    /// delay: until their records are in DNS, receivers cannot verify the new signatures). The old records may go
    /// once mail signed with them has been delivered (days).
    /// - Returns: the new keys, RSA first.
    /// - Throws: as ``keys(for:)``.
    @discardableResult
    public func rotate(domain: String) throws(DKIMKeyError) -> [DKIMKey] {
        let domain = try Self.normalized(domain)
        let now = clock()
        let made = try generate(DKIMSigningKey.Algorithm.allCases, domain: domain, now: now)
        try write("DKIM keys for \(domain) could not be rotated") { connection in
            try connection.transaction {
                try connection.run(
                    "UPDATE dkim_keys SET retired_at = ? WHERE domain = ? AND retired_at IS NULL",
                    [.integer(now), .text(domain)])
                for row in made { try Self.insert(row, connection, ifNoActiveKey: false) }
            }
        }
        return try activeRows(domain).map(open)
    }

    /// Every key `domain` has had, the signing ones and the retired ones, oldest first; none made here.
    /// - Throws: `DKIMKeyError` `.invalidDomain`, `.configuration`, `.corrupt`, `.database`.
    public func history(for domain: String) throws(DKIMKeyError) -> [DKIMKey] {
        let domain = try Self.normalized(domain)
        return try rows(domain, activeOnly: false).map(open)
    }

    // MARK: Rows

    private struct Row: Sendable {
        var domain: String
        var selector: String
        var algorithm: DKIMSigningKey.Algorithm
        var createdAt: Int64
        var retiredAt: Int64?
        /// Sealed on PostgreSQL, PKCS#8 PEM on SQLite.
        var privateKey: [UInt8]
    }

    private func activeRows(_ domain: String) throws(DKIMKeyError) -> [Row] {
        try rows(domain, activeOnly: true)
    }

    private func rows(_ domain: String, activeOnly: Bool) throws(DKIMKeyError) -> [Row] {
        let sql =
            "SELECT selector, algorithm, created_at, retired_at, private_key FROM dkim_keys WHERE domain = ?"
            + (activeOnly ? " AND retired_at IS NULL" : "")
        let found: [SQLRow]
        do {
            found = try database.readSync { try $0.query(sql, [.text(domain)]) }
        } catch {
            throw DKIMKeyError(.database, "the DKIM keys of \(domain) could not be read: \(error)")
        }
        var rows: [Row] = []
        for row in found {
            guard let selector = row.text("selector"),
                let algorithm = row.text("algorithm").flatMap(DKIMSigningKey.Algorithm.init(rawValue:)),
                let createdAt = row.int("created_at"), let privateKey = row.blob("private_key")
            else { throw DKIMKeyError(.corrupt, "dkim_keys holds a row for \(domain) that is not a key") }
            rows.append(
                Row(
                    domain: domain, selector: selector, algorithm: algorithm, createdAt: createdAt,
                    retiredAt: row.int("retired_at"), privateKey: privateKey))
        }
        // RSA first (the older verifiers' algorithm), then by age.
        let order = DKIMSigningKey.Algorithm.allCases
        return rows.sorted {
            ($0.createdAt, order.firstIndex(of: $0.algorithm)!) < ($1.createdAt, order.firstIndex(of: $1.algorithm)!)
        }
    }

    private static func insert(_ row: Row, _ connection: any SQLConnection, ifNoActiveKey: Bool) throws {
        try connection.run(
            "INSERT INTO dkim_keys (domain, selector, algorithm, created_at, private_key) VALUES (?, ?, ?, ?, ?)"
                + (ifNoActiveKey ? " ON CONFLICT DO NOTHING" : ""),
            [
                .text(row.domain), .text(row.selector), .text(row.algorithm.rawValue), .integer(row.createdAt),
                .blob(row.privateKey),
            ])
    }

    private func write(_ failure: String, _ body: (any SQLConnection) throws -> Void) throws(DKIMKeyError) {
        do {
            try database.writeSync(body)
        } catch {
            throw DKIMKeyError(.database, "\(failure): \(error)")
        }
    }

    // MARK: Keys

    /// New keys of `algorithms` for `domain`, sealed or PEM as stored, under selectors `<k>-<yyyymmdd>-<6 hex>`
    /// sharing one random suffix (`rsa-20261125-3f9a0c`, `ed25519-20261125-3f9a0c`).
    private func generate(_ algorithms: [DKIMSigningKey.Algorithm], domain: String, now: Int64)
        throws(DKIMKeyError) -> [Row]
    {
        let day = Self.dayStamp(now)
        let suffix = Hex.encode(SecureRandom.bytes(3))
        var rows: [Row] = []
        for algorithm in algorithms {
            let selector = "\(algorithm.keyType)-\(day)-\(suffix)"
            let pem: String
            do throws(CryptoError) {
                switch algorithm {
                case .rsaSHA256: pem = try RSAPrivateKey.generate(bits: 2048).pkcs8PEM
                case .ed25519SHA256: pem = try Ed25519PrivateKey.generate().pkcs8PEM
                }
            } catch {
                throw DKIMKeyError(.keyGeneration, "a \(algorithm.rawValue) key for \(domain): \(error.reason)")
            }
            var stored = Array(pem.utf8)
            if let sealer {
                do throws(KeyStoreError) {
                    stored = try sealer.seal(
                        stored, binding: Self.binding(algorithm, domain, selector),
                        name: "DKIM key \(selector) of \(domain)")
                } catch {
                    throw DKIMKeyError(.configuration, error.reason)
                }
            }
            rows.append(
                Row(
                    domain: domain, selector: selector, algorithm: algorithm, createdAt: now, retiredAt: nil,
                    privateKey: stored))
        }
        return rows
    }

    private func open(_ row: Row) throws(DKIMKeyError) -> DKIMKey {
        let cacheKey = "\(row.algorithm.rawValue) \(row.domain) \(row.selector)"
        if let key = opened.withLock({ $0[cacheKey] }) {
            return DKIMKey(domain: row.domain, signingKey: key, createdAt: row.createdAt, retiredAt: row.retiredAt)
        }
        let name = "DKIM key \(row.selector) of \(row.domain)"
        var material = row.privateKey
        if let sealer {
            do throws(KeyStoreError) {
                material = try sealer.open(
                    material, binding: Self.binding(row.algorithm, row.domain, row.selector), name: name)
            } catch {
                throw DKIMKeyError(error.code == .corrupt ? .corrupt : .configuration, error.reason)
            }
        }
        let pem = String(decoding: material, as: UTF8.self)
        let key: DKIMSigningKey
        do throws(CryptoError) {
            switch row.algorithm {
            case .rsaSHA256: key = DKIMSigningKey(selector: row.selector, rsa: try RSAPrivateKey(pem: pem))
            case .ed25519SHA256: key = DKIMSigningKey(selector: row.selector, ed25519: try Ed25519PrivateKey(pem: pem))
            }
        } catch {
            throw DKIMKeyError(.corrupt, "\(name) is not a \(row.algorithm.rawValue) private key")
        }
        opened.withLock { $0[cacheKey] = key }
        return DKIMKey(domain: row.domain, signingKey: key, createdAt: row.createdAt, retiredAt: row.retiredAt)
    }

    private static func binding(_ algorithm: DKIMSigningKey.Algorithm, _ domain: String, _ selector: String)
        -> [UInt8]
    {
        Array("postern dkim key \(algorithm.rawValue) \(domain) \(selector)".utf8)
    }

    /// `yyyymmdd` of `seconds` in UTC.
    static func dayStamp(_ seconds: Int64) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(seconds)))
        return String(format: "%04d%02d%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// `domain` lower-cased without a final dot, when it is a host name: labels of letters, digits and hyphens (not
    /// at a label's ends), 1 to 63 characters each, 253 in all.
    /// - Throws: `DKIMKeyError` `.invalidDomain`.
    public static func normalized(_ domain: String) throws(DKIMKeyError) -> String {
        var name = domain.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        let valid =
            !name.isEmpty && name.utf8.count <= 253
            && labels.allSatisfy { label in
                (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                    && label.utf8.allSatisfy { byte in
                        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    }
            }
        guard valid else { throw DKIMKeyError(.invalidDomain, "not a domain name: \(domain.prefix(80))") }
        return name
    }
}
