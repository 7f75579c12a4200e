import AuthCrypto
import Storage

/// The web inbox's sessions and one-time links (`web_inbox_sessions`, `web_inbox_links`): cookies and links carry 32
/// random bytes, the tables only their SHA-256, so a database read never yields a usable cookie or link.
public struct WebInboxSessions: Sendable {
    let database: any SQLDatabase
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - database: a database with migrations 0037 and 0058 applied.
    ///   - clock: Unix seconds.
    public init(database: any SQLDatabase, clock: @escaping @Sendable () -> Int64) {
        self.database = database
        self.clock = clock
    }

    /// Opens a session of `principal`, resting on `binding` (what ``WebInboxService`` checks on every request), for
    /// `lifetime` seconds; returns the cookie value. Expired sessions go with ``WebInboxPurge``.
    /// - Parameter provider: the sign-in provider it came in through (its name; migration 0058); nil for any other
    ///   sign-in.
    func open(
        _ principal: WebInboxPrincipal, binding: WebInboxSessionBinding, lifetime: Int64, provider: String? = nil
    ) async throws -> String {
        let token = Base64URL.encode(SecureRandom.bytes(32))
        let now = clock()
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO web_inbox_sessions (token_digest, kind, subject, binding, created_at, expires_at, provider)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .blob(Self.digest(token)), .text(principal.kind), .text(principal.subject), .text(binding.encoded),
                    .integer(now), .integer(now + lifetime), provider.map { .text($0) } ?? .null,
                ])
        }
        return token
    }

    /// Who the unexpired session `token` is, and what it rests on, if any (none when its binding is no spelling of
    /// ``WebInboxSessionBinding``).
    func principal(token: String) async throws -> (principal: WebInboxPrincipal, binding: WebInboxSessionBinding)? {
        guard token.utf8.count == 43 else { return nil }
        let now = clock()
        return try await database.read { connection in
            guard let row = try connection.query(
                "SELECT kind, subject, binding FROM web_inbox_sessions WHERE token_digest = ? AND expires_at > ?",
                [.blob(Self.digest(token)), .integer(now)]
            ).first, let kind = row.text("kind"), let subject = row.text("subject"),
                let binding = row.text("binding").flatMap(WebInboxSessionBinding.init(encoded:)), let principal = WebInboxPrincipal(kind: kind, subject: subject)
            else { return nil }
            return (principal, binding)
        }
    }

    /// When the unexpired session `token` was opened (Unix seconds); nil when there is none.
    func openedAt(token: String) async throws -> Int64? {
        guard token.utf8.count == 43 else { return nil }
        let now = clock()
        return try await database.read { connection in
            try connection.query(
                "SELECT created_at FROM web_inbox_sessions WHERE token_digest = ? AND expires_at > ?",
                [.blob(Self.digest(token)), .integer(now)]
            ).first?.int("created_at")
        }
    }

    /// Ends session `token`; nothing when there is none.
    /// - Returns: the sign-in provider the session came in through; nil when it came in otherwise, or there was none.
    @discardableResult
    func close(token: String) async throws -> String? {
        try await database.write { connection in
            let digest = SQLValue.blob(Self.digest(token))
            let provider = try connection.query(
                "SELECT provider FROM web_inbox_sessions WHERE token_digest = ?", [digest]
            ).first?.text("provider")
            try connection.run("DELETE FROM web_inbox_sessions WHERE token_digest = ?", [digest])
            return provider
        }
    }

    /// Ends every session of `principal` but `keeping` (a session cookie; nil: every one), and lets the kept one, when
    /// it rests on a token epoch, rest on `binding` from now: on `connection`, inside the caller's transaction. What
    /// turning a Pro user's second factor on does after moving their epoch on (the kept session would end with the old
    /// epoch); a session resting on anything else keeps its binding.
    /// - Throws: storage errors.
    public static func endOthers(
        of principal: WebInboxPrincipal, keeping: String?, restingOn binding: WebInboxSessionBinding,
        _ connection: any SQLConnection
    ) throws {
        let who: [SQLValue] = [.text(principal.kind), .text(principal.subject)]
        let kept = SQLValue.blob(keeping.map(digest) ?? [])
        try connection.run(
            "DELETE FROM web_inbox_sessions WHERE kind = ? AND subject = ? AND token_digest <> ?", who + [kept])
        guard keeping != nil else { return }
        try connection.run(
            """
            UPDATE web_inbox_sessions SET binding = ?
            WHERE kind = ? AND subject = ? AND token_digest = ? AND binding LIKE 'epoch:%'
            """, [.text(binding.encoded)] + who + [kept])
    }

    /// Makes a one-time link token to `address`, usable for `lifetime` seconds (expired links go with
    /// ``WebInboxPurge``).
    public func makeLink(address: String, lifetime: Int64) async throws -> String {
        let token = Base64URL.encode(SecureRandom.bytes(32))
        let now = clock()
        _ = try await database.write { connection in
            try connection.run(
                "INSERT INTO web_inbox_links (token_digest, address, created_at, expires_at) VALUES (?, ?, ?, ?)",
                [.blob(Self.digest(token)), .text(address), .integer(now), .integer(now + lifetime)])
        }
        return token
    }

    /// Makes a one-time link token that opens every mailbox read-only (``WebInboxPrincipal/allMail``), usable for
    /// `lifetime` seconds.
    public func makeAllMailLink(lifetime: Int64) async throws -> String {
        try await makeLink(address: WebInboxPrincipal.allMailLinkAddress, lifetime: lifetime)
    }

    /// Uses link `token`: its address when it was unused and unexpired; it is gone either way (single use: of two
    /// browsers racing, only the one whose delete removed the row gets the address).
    func useLink(token: String) async throws -> String? {
        guard token.utf8.count == 43 else { return nil }
        let now = clock()
        let digest = Self.digest(token)
        return try await database.write { connection in
            try connection.transaction {
                guard let row = try connection.query(
                    "SELECT address, expires_at FROM web_inbox_links WHERE token_digest = ?", [.blob(digest)]
                ).first, let address = row.text("address"), let expires = row.int("expires_at") else { return nil }
                let removed = try connection.run(
                    "DELETE FROM web_inbox_links WHERE token_digest = ?", [.blob(digest)])
                return removed > 0 && expires > now ? address : nil
            }
        }
    }

    static func digest(_ token: String) -> [UInt8] { SHA256.hash(Array(token.utf8)) }
}
