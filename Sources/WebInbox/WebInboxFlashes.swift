import AuthCrypto
import Storage

/// The web inbox's one-shot notices (`web_inbox_flashes`, migration 0038): one a session, kept on the server so that a
/// new API token or webhook secret is never in a URL or a cookie, and read once.
///
/// A flash is sealed (AES-256-GCM) under a key derived from the session's cookie value and a key every instance shares;
/// the table holds the cookie's SHA-256 only, so a database read opens no flash, and one session cannot read another's.
struct WebInboxFlashes: Sendable {
    /// Seconds a flash waits for the page that shows it.
    static let lifetime: Int64 = 120

    let database: any SQLDatabase
    /// 32 random bytes every instance shares (`SharedSecrets`).
    let key: [UInt8]
    let clock: @Sendable () -> Int64

    /// Keeps `flash` for the session whose cookie value is `session`, replacing any it had; forgets expired ones.
    func put(_ flash: WebInboxFlash, session: String) async throws {
        let now = clock()
        let expires = now + Self.lifetime
        let digest = WebInboxSessions.digest(session)
        let nonce = SecureRandom.bytes(AESGCM.nonceByteCount)
        let sealed =
            try nonce
            + AESGCM.seal(
                flash.encoded, key: sealingKey(session), nonce: nonce, associatedData: Self.binding(digest, expires))
        _ = try await database.write { connection in
            try connection.transaction {
                try connection.run("DELETE FROM web_inbox_flashes WHERE session_digest = ?", [.blob(digest)])
                try connection.run(
                    "INSERT INTO web_inbox_flashes (session_digest, sealed, expires_at) VALUES (?, ?, ?)",
                    [.blob(digest), .blob(sealed), .integer(expires)])
            }
        }
    }

    /// The session's flash, if one is waiting and unexpired; it is gone either way (read once).
    func take(session: String) async throws -> WebInboxFlash? {
        let now = clock()
        let digest = WebInboxSessions.digest(session)
        // Most dashboard views have none waiting: a read finds that without taking the database's write lock.
        let waiting = try await database.read { connection in
            try !connection.query("SELECT 1 FROM web_inbox_flashes WHERE session_digest = ?", [.blob(digest)]).isEmpty
        }
        guard waiting else { return nil }
        let row = try await database.write { connection in
            try connection.transaction { () -> (sealed: [UInt8], expires: Int64)? in
                guard
                    let row = try connection.query(
                        "SELECT sealed, expires_at FROM web_inbox_flashes WHERE session_digest = ?", [.blob(digest)]
                    ).first, let sealed = row.blob("sealed"), let expires = row.int("expires_at")
                else { return nil }
                try connection.run("DELETE FROM web_inbox_flashes WHERE session_digest = ?", [.blob(digest)])
                return (sealed, expires)
            }
        }
        guard let row, row.expires > now, row.sealed.count > AESGCM.nonceByteCount + AESGCM.tagByteCount,
            let plain = try? AESGCM.open(
                Array(row.sealed.dropFirst(AESGCM.nonceByteCount)), key: sealingKey(session),
                nonce: Array(row.sealed.prefix(AESGCM.nonceByteCount)),
                associatedData: Self.binding(digest, row.expires))
        else { return nil }
        return WebInboxFlash(encoded: plain)
    }

    /// Forgets the session's flash (it signed out).
    func forget(session: String) async throws {
        _ = try await database.write { connection in
            try connection.run(
                "DELETE FROM web_inbox_flashes WHERE session_digest = ?", [.blob(WebInboxSessions.digest(session))])
        }
    }

    /// The key a session's flash is sealed under: HMAC-SHA256 of its cookie value under the shared key.
    private func sealingKey(_ session: String) -> [UInt8] {
        HMACSHA256.authenticationCode(key: key, message: Array(("web inbox flash|" + session).utf8))
    }

    /// What the sealing is bound to: the session's digest and the expiry.
    private static func binding(_ digest: [UInt8], _ expires: Int64) -> [UInt8] {
        Array("web-inbox-flash|".utf8) + digest + (0..<8).map { UInt8(truncatingIfNeeded: expires >> (56 - 8 * $0)) }
    }
}
