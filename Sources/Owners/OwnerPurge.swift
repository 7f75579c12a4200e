import BrowserPages
import CustomDomains
import Passkeys
import Storage

/// What the owners' tables shed over time, run every minute by the server (`PurgeSchedule`): expired sessions, and
/// sign-in failure rows that block nothing any more and are a day old, and custom-domain claims left pending past
/// their verification window (every holder's: owners' and Mail.td Pro users' claims are one table, ``CustomDomains``), and
/// passkey ceremonies' challenges past their five minutes (every holder's, ``PasskeyChallenges``).
public enum OwnerPurge {
    /// Deletes them; returns how many rows went.
    /// - Parameter domainVerificationWindow: seconds a domain claim may stay pending
    ///   (``CustomDomains/defaultVerificationWindow``, as the runtime's custom domains keep them).
    public static func run(
        _ connection: any SQLConnection, now: Int64,
        domainVerificationWindow: Int64 = CustomDomains.defaultVerificationWindow
    ) throws -> Int {
        try connection.run("DELETE FROM owner_sessions WHERE expires_at <= ?", [.integer(now)])
            + OwnerDomains.purgeLapsed(connection, now: now, window: domainVerificationWindow)
            + SignInThrottle.purge(connection, now: now) + PasskeyChallenges.purge(connection, now: now)
    }
}
