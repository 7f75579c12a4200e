import Storage

/// What the authorization server's tables shed over time, run every minute by the server (`PurgeSchedule`):
/// registrations nobody used within a day, codes a day past their expiry (kept that long so that a late replay is
/// still recognised) and the consents whose code expired unredeemed, access-token rows past their expiry, refresh
/// tokens past theirs, grants a month after they ended (their codes and tokens go with them), client credentials
/// grants a day after their token expired, client assertion ids once they expired, device codes a day past their
/// expiry (with the grants approved for them and never redeemed) and wrong user-code counts once their window ended;
/// and the OpenID Provider's codes a day past their expiry, its access-token rows past theirs, and the sign-ins of
/// owner sessions that ended.
public enum OAuthPurge {
    /// Deletes them; returns how many rows went.
    public static func run(_ connection: any SQLConnection, now: Int64, unusedClientLifetime: Int64 = 86_400) throws
        -> Int
    {
        // A consent whose code expired unredeemed gave the app nothing: it goes before its code, which names it.
        try connection.run(
            """
            DELETE FROM oauth_grants
            WHERE id IN (SELECT grant_id FROM oauth_codes WHERE used_at IS NULL AND expires_at < ?)
            """,
            [.integer(now - 86_400)])
            + connection.run("DELETE FROM oauth_codes WHERE expires_at < ?", [.integer(now - 86_400)])
            // Likewise a device authorization approved and never redeemed, then the device codes themselves.
            + connection.run(
                """
                DELETE FROM oauth_grants WHERE id IN (SELECT grant_id FROM oauth_device_codes
                    WHERE grant_id IS NOT NULL AND redeemed_at IS NULL AND expires_at < ?)
                """,
                [.integer(now - 86_400)])
            + connection.run("DELETE FROM oauth_device_codes WHERE expires_at < ?", [.integer(now - 86_400)])
            + connection.run("DELETE FROM oauth_device_guesses WHERE window_ends < ?", [.integer(now)])
            + connection.run("DELETE FROM oauth_access_tokens WHERE expires_at < ?", [.integer(now)])
            + connection.run("DELETE FROM oauth_refresh_tokens WHERE expires_at < ?", [.integer(now)])
            + connection.run(
                "DELETE FROM oauth_grants WHERE expires_at < ? OR revoked_at < ?",
                [.integer(now - 30 * 86_400), .integer(now - 30 * 86_400)])
            + connection.run("DELETE FROM oauth_client_grants WHERE expires_at < ?", [.integer(now - 86_400)])
            + connection.run("DELETE FROM oauth_assertion_jtis WHERE expires_at < ?", [.integer(now)])
            + connection.run("DELETE FROM oauth_delegated_tokens WHERE expires_at < ?", [.integer(now - 86_400)])
            + OAuthClientRecords.trimUnused(connection, now: now, unusedLifetime: unusedClientLifetime)
            + OIDCSignIns.purge(connection, now: now)
    }
}
