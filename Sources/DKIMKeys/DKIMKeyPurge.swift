import CustomDomains
import Storage

/// The DKIM keys of domains Postern no longer signs for, shed by the server's purge (every ten minutes).
///
/// A domain's keys stay while the configuration serves it (the agent inbox domain, the mailbox domains: `keep`) or
/// any custom-domain claim names it, pending or verified. Once neither holds, its keys are retired at once (a holder
/// who claims it again, or anyone else, gets new keys under new selectors, never the old ones), and the rows are
/// deleted ``defaultGrace`` after the last of them was retired: by then no signature made with them is still checked
/// (receivers check a signature when the message arrives, and the outbound queue gives a message up after five days).
/// Keys the operator made with `postern dkim rotate` for a domain nothing serves go the same way.
public enum DKIMKeyPurge {
    /// How long a retired domain's keys are kept before they are deleted: 30 days.
    public static let defaultGrace: Int64 = 30 * 86_400

    /// Retires the keys of every domain in `dkim_keys` neither in `keep` nor claimed, and deletes the rows of such
    /// a domain whose keys were all retired more than `grace` seconds before `now`; in one transaction.
    /// - Parameter keep: the lower-cased domains the configuration serves.
    /// - Returns: how many rows were deleted.
    /// - Throws: storage errors.
    public static func run(
        _ connection: any SQLConnection, now: Int64, keep: Set<String>, grace: Int64 = defaultGrace
    ) throws -> Int {
        try connection.transaction {
            let claimed = try CustomDomains.claimedDomains(connection)
            let domains = try connection.query("SELECT DISTINCT domain FROM dkim_keys", []).compactMap {
                $0.text("domain")
            }
            var deleted = 0
            for domain in domains where !keep.contains(domain) && !claimed.contains(domain) {
                try connection.run(
                    "UPDATE dkim_keys SET retired_at = ? WHERE domain = ? AND retired_at IS NULL",
                    [.integer(now), .text(domain)])
                let newest =
                    try connection.query(
                        "SELECT MAX(retired_at) AS newest FROM dkim_keys WHERE domain = ?", [.text(domain)]
                    ).first?.int("newest") ?? now
                if newest < now - grace {
                    deleted += try connection.run("DELETE FROM dkim_keys WHERE domain = ?", [.text(domain)])
                }
            }
            return deleted
        }
    }
}
