import AgentAuth
import Logging
import MailboxAccounts
import Owners
import RemoteHashAuth
import SigningKeys
import Storage

/// The start-up check for a data directory whose keys were lost: a database that already holds accounts meeting a
/// key ring generated just now (the database was copied without its `keys/`, the old way of restoring a backup).
enum KeyRingCheck {
    /// The rows that hold tokens or keys the old key ring signed or that people sign in to, each counted by the
    /// target that owns its table (agents, Mail.td accounts and Pro users, remote-hash users, owners).
    static func accountRows(_ connection: any SQLConnection) throws -> Int64 {
        try AgentAccountStore.accountRows(connection) + MailboxStore.accountRows(connection)
            + RemoteUserStore.accountRows(connection) + OwnerStore.accountRows(connection)
    }

    /// Logs a warning when `store` generated its key ring on this start and the database holds accounts: every
    /// token given out before (Mail.td, Pro, remote-hash, sessions) is refused from now on.
    /// - Throws: storage errors.
    static func warnIfNew(_ store: any SigningKeyStore, database: any SQLDatabase, logger: Logger) throws {
        guard let fileStore = store as? KeyStore, fileStore.generatedKeyRing else { return }
        let accounts = try database.readSync(accountRows)
        guard accounts > 0 else { return }
        logger.warning(
            """
            new signing keys were generated for a database that holds accounts: tokens issued before are refused; \
            restore the data directory's keys/ with it (postern restore) or accept that they were lost
            """,
            metadata: ["accounts": "\(accounts)", "keys": "\(fileStore.keyDirectory)"])
    }
}
