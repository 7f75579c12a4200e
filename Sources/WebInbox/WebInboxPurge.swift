import Storage

/// What the web inbox's tables shed over time, run every minute by the server (`PurgeSchedule`): expired sessions,
/// one-time links and one-shot notices (an unread sealed token among them). Its sign-in failures are the owners'
/// table's (``SignInThrottle``), shed by `OwnerPurge`.
public enum WebInboxPurge {
    /// Deletes them; returns how many rows went.
    public static func run(_ connection: any SQLConnection, now: Int64) throws -> Int {
        try connection.run("DELETE FROM web_inbox_sessions WHERE expires_at <= ?", [.integer(now)])
            + connection.run("DELETE FROM web_inbox_links WHERE expires_at <= ?", [.integer(now)])
            + connection.run("DELETE FROM web_inbox_flashes WHERE expires_at <= ?", [.integer(now)])
    }
}
