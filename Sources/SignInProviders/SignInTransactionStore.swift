import AuthCrypto
import Storage

/// A login in progress with a provider (issue 54 item 3): what the callback needs to finish it.
public struct SignInTransaction: Sendable, Equatable {
    /// The provider's name.
    public var provider: String
    /// Whose accounts the login is for.
    public var surface: SignInProvider.Surface
    /// The signed-in account the identity is to be linked to; nil for a sign-in.
    public var account: String?
    /// The id_token's expected `nonce`: 32 random bytes, base64url.
    public var nonce: String
    /// PKCE's `code_verifier` (RFC 7636): 32 random bytes, base64url (43 characters), sent only to the token endpoint.
    public var codeVerifier: String
    /// The local path to go back to.
    public var returnTo: String

    /// PKCE's `code_challenge` for ``codeVerifier`` with method S256: base64url(SHA-256(verifier)).
    public var codeChallenge: String { Self.codeChallenge(for: codeVerifier) }

    /// base64url(SHA-256(`verifier`)), RFC 7636 section 4.2.
    public static func codeChallenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.hash(Array(verifier.utf8)))
    }
}

/// Why a login transaction cannot begin.
public enum SignInTransactionError: Error, Sendable, Equatable {
    /// The return path is not a local path (`/...`, not `//...` nor with a backslash or a control character): a
    /// sign-in must never end on another site.
    case returnPathNotLocal
    /// Too many sign-ins without an account are waiting for their callback, from this client or from all
    /// (``SignInTransactionStore/limits``).
    case full
}

/// The login transactions (`signin_transactions`), in the database so that any instance behind the balancer can answer
/// a provider's callback. `state` and the browser's pre-session token are stored as SHA-256 digests only. A transaction
/// is single use (taking it deletes it, whatever the outcome), bound to the browser that began it (a callback URL
/// carried to another browser, the login CSRF of RFC 6749 section 10.12, opens nothing) and lives ``lifetime`` seconds.
///
/// A sign-in's transaction is made for anyone who asks (`POST /oidc/start`, issue 66 item 6): the rows with no account
/// are counted per client, each recording the client that began it (issue 81 item 10), and in all (``limits``,
/// counted in the database so every instance shares them). A client past its share, or anyone past the ceiling, gets
/// ``SignInTransactionError/full`` from ``begin(provider:surface:account:returnTo:browser:client:)`` until
/// transactions expire, while another client under its share still begins one; a signed-in person's link is never
/// refused.
public struct SignInTransactionStore: Sendable {
    /// How long a login may take between the redirect and the callback, in seconds: ten minutes.
    public static let lifetime: Int64 = 600
    let database: any SQLDatabase
    let clock: @Sendable () -> Int64
    /// Most unexpired transactions without an account at once: per client, and in all.
    let limits: UnauthenticatedRowLimits

    /// - Parameters:
    ///   - database: a database with migration 0065 applied.
    ///   - clock: Unix seconds.
    ///   - limits: most unexpired transactions without an account at once, per client and in all.
    public init(
        database: any SQLDatabase, clock: @escaping @Sendable () -> Int64,
        limits: UnauthenticatedRowLimits = UnauthenticatedRowLimits()
    ) {
        self.database = database
        self.clock = clock
        self.limits = limits
    }

    /// Begins a login: a fresh state, nonce and PKCE verifier, stored for ``lifetime`` seconds.
    /// - Parameters:
    ///   - provider: the provider's name.
    ///   - surface: whose accounts the login is for.
    ///   - account: the signed-in account to link the identity to, or nil for a sign-in.
    ///   - returnTo: the local path to go back to.
    ///   - browser: the browser's pre-session token (its cookie), which the callback must present again.
    ///   - client: the key of the client that asks (`ClientAddressKey`'s text), whose share a sign-in counts against;
    ///     nil counts as one more client, the unnamed one.
    /// - Returns: the `state` for the authorization request, and the transaction.
    /// - Throws: ``SignInTransactionError/returnPathNotLocal``; ``SignInTransactionError/full`` for a sign-in (no
    ///   `account`) past ``limits``; the database's errors.
    public func begin(
        provider: String, surface: SignInProvider.Surface, account: String?, returnTo: String, browser: String,
        client: String? = nil
    ) async throws -> (state: String, transaction: SignInTransaction) {
        guard Self.isLocalPath(returnTo) else { throw SignInTransactionError.returnPathNotLocal }
        let state = Base64URL.encode(SecureRandom.bytes(32))
        let transaction = SignInTransaction(
            provider: provider, surface: surface, account: account, nonce: Base64URL.encode(SecureRandom.bytes(32)),
            codeVerifier: Base64URL.encode(SecureRandom.bytes(32)), returnTo: returnTo)
        let now = clock()
        let bindings: [SQLValue] = [
            .blob(Self.digest(state)), .blob(Self.digest(browser)), .text(provider), .text(surface.rawValue),
            account.map(SQLValue.text) ?? .null, .text(transaction.nonce), .text(transaction.codeVerifier),
            .text(returnTo), .integer(now), .integer(now + Self.lifetime), .text(client ?? ""),
        ]
        // Only a login nobody signed in began counts against the caps.
        let caps =
            account != nil
            ? []
            : limits.caps(
                table: "signin_transactions", unauthenticated: "account IS NULL", unexpired: ">", client: client ?? "",
                now: now)
        let inserted = try await database.write { connection in
            try connection.insert(
                """
                INSERT INTO signin_transactions (state_digest, browser_digest, provider, surface, account, nonce,
                    code_verifier, return_to, created_at, expires_at, client)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, bindings, within: caps)
        }
        guard inserted else { throw SignInTransactionError.full }
        return (state, transaction)
    }

    /// Takes the transaction of `state`: it is deleted whatever follows, and given back only when it is unexpired and
    /// `browser` began it. Of two callbacks racing with one state, only the one whose delete removed the row gets it.
    /// - Returns: the transaction, or nil for an unknown, used, expired or other browser's state.
    public func take(state: String, browser: String) async throws -> SignInTransaction? {
        guard state.utf8.count == 43 else { return nil }
        let now = clock()
        let stateDigest = Self.digest(state)
        let browserDigest = Self.digest(browser)
        return try await database.write { connection -> SignInTransaction? in
            try connection.transaction {
                guard
                    let row = try connection.query(
                        """
                        SELECT browser_digest, provider, surface, account, nonce, code_verifier, return_to, expires_at
                        FROM signin_transactions WHERE state_digest = ?
                        """, [.blob(stateDigest)]
                    ).first
                else { return nil }
                let removed = try connection.run(
                    "DELETE FROM signin_transactions WHERE state_digest = ?", [.blob(stateDigest)])
                guard removed > 0, let expires = row.int("expires_at"), expires > now,
                    let began = row.blob("browser_digest"), constantTimeEquals(began, browserDigest),
                    let provider = row.text("provider"),
                    let surface = row.text("surface").flatMap(
                        SignInProvider.Surface.init(rawValue:)),
                    let nonce = row.text("nonce"), let verifier = row.text("code_verifier"),
                    let returnTo = row.text("return_to")
                else { return nil }
                return SignInTransaction(
                    provider: provider, surface: surface, account: row.text("account"), nonce: nonce,
                    codeVerifier: verifier, returnTo: returnTo)
            }
        }
    }

    /// Deletes the transactions that have expired (logins abandoned at the provider).
    /// - Returns: how many were deleted.
    @discardableResult
    public func purge() async throws -> Int {
        let now = clock()
        return try await database.write { connection in try Self.purge(connection, now: now) }
    }

    /// Deletes the transactions expired at `now` on `connection` (the server's purge schedule, every minute).
    /// - Returns: how many were deleted.
    /// - Throws: storage errors.
    public static func purge(_ connection: any SQLConnection, now: Int64) throws -> Int {
        try connection.run("DELETE FROM signin_transactions WHERE expires_at <= ?", [.integer(now)])
    }

    /// A path on this site: starts with one `/`, no backslash, no control character or space.
    static func isLocalPath(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/"), bytes.count <= 2048 else { return false }
        if bytes.count > 1, bytes[1] == UInt8(ascii: "/") { return false }
        return bytes.allSatisfy { $0 > 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "\\") }
    }

    static func digest(_ token: String) -> [UInt8] { SHA256.hash(Array(token.utf8)) }
}
