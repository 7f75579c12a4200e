import Audit
import EmailAddresses
import Foundation
import JWT
import PosternApp
import SigningKeys
import Logging
import MailStore
import MailboxAccounts
import Owners
import AgentAuth
import ComputePool
import DNS
import SignInProviders
import Storage
import Directory
import Time

/// The operator commands behind `postern migrate`, `keys`, `backup` and `restore`, kept here so they are testable.
public enum Operations {
    /// Applies pending migrations; returns the names applied.
    public static func migrate(configuration: PosternConfiguration, logger: Logger) throws -> [String] {
        let (database, applied) = try DatabaseOpener.migrated(configuration, readers: 1, logger: logger)
        database.close()
        return applied
    }

    /// One line per signing key: kid, algorithm, its state in words (``SigningKeyListing/State``), created, where
    /// it is kept; then the keys killed with `keys retire --now` that the audit trail still remembers.
    public static func listKeys(configuration: PosternConfiguration, logger: Logger, now: Int64 = unixNow()) throws
        -> [String]
    {
        try withKeyStore(configuration, logger: logger, now: now) { store, database in
            let held = store.list()
            let killed = try database.readSync { connection in
                try SQLAuditLog.events(connection, since: nil, ownerID: nil, action: .keysRetired, limit: 10_000)
            }
            return held.map { SigningKeyListing.line($0, now: now) }
                + SigningKeyListing.killedLines(killed, held: Set(held.map(\.kid)))
        }
    }

    /// Adds new keys (on PostgreSQL published at once and signing after the promotion delay); returns the
    /// listing after rotation.
    public static func rotateKeys(configuration: PosternConfiguration, logger: Logger, now: Int64 = unixNow()) throws
        -> [String]
    {
        try withKeyStore(configuration, logger: logger, now: now) { store, database in
            try store.rotate(now: now)
            let listing = store.list()
            let active = listing.filter(\.isActive).map(\.kid).joined(separator: " ")
            recordOperator(database, .keysRotated, target: "signing keys", details: ["active": active], logger: logger)
            return listing.map { SigningKeyListing.line($0, now: now) }
        }
    }

    /// Retires the key `kid` now (a leaked key): it leaves the key set and the JWKS instead of verifying until its
    /// tokens expire, and a new key of its kind signs at once when it was the active one. Returns what happened, then
    /// the listing.
    /// - Throws: `KeyStoreError` `.unknownKey` for a kid no key has, `.configuration` for `JWT_PRIVATE_KEY`'s key.
    public static func retireKeyNow(
        configuration: PosternConfiguration, kid: String, logger: Logger, now: Int64 = unixNow()
    ) throws -> [String] {
        try withKeyStore(configuration, logger: logger, now: now) { store, database in
            let killed = store.list().first { $0.kid == kid }
            let added = try store.retireNow(kid: kid, now: now)
            recordOperator(
                database, .keysRetired, target: kid, details: SigningKeyListing.killedDetails(killed), logger: logger)
            var lines = ["retired \(kid) now: every token it signed is refused"]
            lines += added.map { "new \($0.algorithm.rawValue) key \($0.kid) signs in its place" }
            lines.append(
                store is DatabaseKeyStore
                    ? "every instance on the database drops it at once (PostgreSQL notification)"
                    : "a server running on this data directory drops it at its next key reload, within "
                        + "POSTERN_KEY_RELOAD_SECONDS (\(configuration.signingKeys.reloadSeconds) s); restart it to drop it "
                        + "now")
            return lines + store.list().map { SigningKeyListing.line($0, now: now) }
        }
    }

    private static func withKeyStore<T>(
        _ configuration: PosternConfiguration, logger: Logger, now: Int64,
        _ body: (any SigningKeyStore, any SQLDatabase) throws -> T
    ) throws -> T {
        try configuration.validate()
        let database = try migratedDatabase(configuration, logger: logger)
        defer { database.close() }
        let store = try SigningKeyStores.open(configuration: configuration, database: database, clock: { now })
        return try body(store, database)
    }

    /// Creates a Pro user (as the hosted service does from its dashboard); returns a one-line summary.
    public static func createProUser(
        configuration: PosternConfiguration, email: String, password: String, maxAccounts: Int?, maxDomains: Int? = nil,
        logger: Logger
    ) async throws -> String {
        let database = try migratedDatabase(configuration, logger: logger)
        let summary = try await mailboxAccounts(configuration, database: database, logger: logger)
            .createProUser(email: email, password: password, maxAccounts: maxAccounts, maxDomains: maxDomains)
        recordOperator(
            database, target: "pro create", details: ["pro_id": summary.id, "email": summary.email], logger: logger)
        return describe(summary)
    }

    /// One line per Pro user; under a user without a password (a provider made them, issue 54, or they removed it, issue 56) `  password: none`,
    /// and under each user their linked sign-in identities, one line each.
    public static func listProUsers(configuration: PosternConfiguration, logger: Logger) async throws -> [String] {
        let database = try migratedDatabase(configuration, logger: logger)
        let service = try mailboxAccounts(configuration, database: database, logger: logger)
        let identities = SignInIdentityStore(database: database, clock: { unixNow() })
        var lines: [String] = []
        for user in try await service.listProUsers() {
            lines.append(describe(user))
            if try await service.proUserLinkCandidate(id: user.id)?.hasPassword == false {
                lines.append("  password: none (signs in with a passkey, a provider or a tm_pro_ token)")
            }
            lines += try await identities.identities(surface: .pro, account: user.id).map(describe(identity:))
        }
        return lines
    }

    /// Revokes an agent account: its API key and every session stop working. False when there is none.
    public static func revokeAgent(configuration: PosternConfiguration, username: String, logger: Logger) async throws -> Bool {
        let database = try migratedDatabase(configuration, logger: logger)
        let revoked = try await AgentAccountStore(database: database).revoke(username: username, now: unixNow())
        if revoked { recordOperator(database, target: "agent revoke", details: ["username": username], logger: logger) }
        return revoked
    }

    /// One line per agent account, oldest first: address, owner (or `-`), created, last login (or `never`), and
    /// `revoked` with its time for a revoked one.
    public static func listAgents(configuration: PosternConfiguration, logger: Logger) async throws -> [String] {
        let database = try migratedDatabase(configuration, logger: logger)
        let domain = EmailDomain.key(configuration.agent.inboxDomain)
        let (agents, emails) = try await database.read { connection in
            try connection.readTransaction {
                let agents = try AgentAccountStore.listing(connection)
                return (agents, try OwnerStore.emails(ids: agents.compactMap(\.ownerID), connection))
            }
        }
        return agents.map { describe($0, ownerEmail: $0.ownerID.flatMap { emails[$0] }, domain: domain) }
    }

    static func describe(_ agent: AgentAccountListing, ownerEmail: String?, domain: String) -> String {
        func time(_ seconds: Int64) -> String { RFC3339.format(seconds) }
        var line = "\(AgentInbox.address(username: agent.username, domain: domain))  owner \(ownerEmail ?? "-")"
        line += "  created \(time(agent.createdAt))  last login \(agent.lastLoginAt.map(time) ?? "never")"
        if let revoked = agent.revokedAt { line += "  revoked \(time(revoked))" }
        return line
    }

    /// Sets a Pro user's password and ends every JWT it holds (the token epoch moves on, as an account's reset
    /// does); its named API tokens stay, each revocable on its own. False when no Pro user has `email`.
    /// - Throws: `MailboxError` (`.passwordTooShort`, `.passwordTooLong`); storage errors.
    public static func setProUserPassword(
        configuration: PosternConfiguration, email: String, password: String, logger: Logger
    ) async throws -> Bool {
        let database = try migratedDatabase(configuration, logger: logger)
        let found = try await mailboxAccounts(configuration, database: database, logger: logger)
            .setProUserPassword(email: email, password: password)
        if found { recordOperator(database, target: "pro set-password", details: ["email": email], logger: logger) }
        return found
    }

    static func describe(_ user: ProUserSummary) -> String {
        let created = RFC3339.format(user.createdAt)
        return "\(user.id)  \(user.email)  accounts \(user.accountCount)/\(user.maxAccounts)  created \(created)"
    }

    /// Mail.td's accounts over the migrated database, for the operator commands. They mint no tokens, so
    /// the issuer is the one a server on the configured address would have (port 0 stays 0 here).
    static func mailboxAccounts(
        _ configuration: PosternConfiguration, database: (any SQLDatabase)? = nil, logger: Logger
    ) throws -> MailboxAccountService {
        let database = try database ?? migratedDatabase(configuration, logger: logger)
        let keys = try SigningKeyStores.open(configuration: configuration, database: database, clock: { unixNow() }).keySet()
        let identity = configuration.identity.publicIdentity(
            listeningOn: configuration.listener.host, port: configuration.listener.port)
        return Surfaces.mailboxAccounts(
            configuration, issuer: identity.issuer, keys: keys, database: database, mail: MailStore(database: database),
            pool: WorkerPool(threads: 1), resolver: Surfaces.resolver(configuration, threads: DNSResolver.threadPool()),
            customDomains: Surfaces.customDomains(database: database, signingKeys: nil), clock: { unixNow() })
    }

    /// A command's mail: the migrated database (``migratedDatabase(_:logger:)``) and the mail store and who may
    /// receive over it, with the command's own custom-domain model, which makes and shows no DKIM keys.
    static func commandMail(_ configuration: PosternConfiguration, logger: Logger) throws
        -> (database: any SQLDatabase, mail: Surfaces.LocalMail)
    {
        let database = try migratedDatabase(configuration, logger: logger)
        let domains = Surfaces.customDomains(database: database, signingKeys: nil)
        return (database, Surfaces.localMail(configuration, database: database, domains: domains, clock: { unixNow() }))
    }

    /// The database with every shipped migration applied: what the commands that read or write accounts and mail
    /// work on.
    static func migratedDatabase(_ configuration: PosternConfiguration, logger: Logger) throws -> any SQLDatabase {
        try DatabaseOpener.migrated(configuration, readers: 1, logger: logger).database
    }

    /// Unix seconds now.
    public static func unixNow() -> Int64 { WallClock.system.seconds }
}
