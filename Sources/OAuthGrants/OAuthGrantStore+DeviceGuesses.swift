import Storage

/// The budget of user codes entered on the verification page (migration 0071's `oauth_device_guesses`): each entry
/// is spent before the code is looked up, and given back when it was right, so that only wrong ones count and no
/// entry past the budget, right or wrong, is ever looked up. A key (an owner session, a client address) is stored as
/// its SHA-256; its count lives for a window that starts at its first entry.
extension OAuthGrantStore {
    /// One budget an entry draws on.
    public struct GuessBudget: Sendable {
        /// What is counted: `session:<token>` or `address:<address>` (stored as a digest).
        public let key: String
        /// Wrong entries allowed in a window.
        public let limit: Int

        /// One budget.
        public init(key: String, limit: Int) {
            self.key = key
            self.limit = limit
        }
    }

    /// Spends one entry of every budget in `budgets` (a window of `window` seconds starting at a key's first entry);
    /// false, with the entry spent all the same, when any budget is now past its limit: refuse the entry unread.
    public func spendGuess(_ budgets: [GuessBudget], now: Int64, window: Int64) async throws -> Bool {
        try await database.write { connection in
            try connection.transaction {
                var within = true
                for budget in budgets {
                    let digest = SQLValue.blob(OAuthDigest.of(budget.key))
                    try connection.run(
                        """
                        INSERT INTO oauth_device_guesses (key_digest, failures, window_ends) VALUES (?, 1, ?)
                        ON CONFLICT (key_digest) DO UPDATE SET
                            failures = CASE WHEN oauth_device_guesses.window_ends <= ? THEN 1
                                ELSE oauth_device_guesses.failures + 1 END,
                            window_ends = CASE WHEN oauth_device_guesses.window_ends <= ? THEN excluded.window_ends
                                ELSE oauth_device_guesses.window_ends END
                        """, [digest, .integer(now + window), .integer(now), .integer(now)])
                    let spent =
                        try connection.query(
                            "SELECT failures FROM oauth_device_guesses WHERE key_digest = ?", [digest]
                        ).first?.int("failures") ?? 0
                    if spent > Int64(budget.limit) { within = false }
                }
                return within
            }
        }
    }

    /// Gives back the entry ``spendGuess(_:now:window:)`` took from each of `budgets`: it was right.
    public func refundGuess(_ budgets: [GuessBudget]) async throws {
        _ = try await database.write { connection in
            try connection.transaction {
                for budget in budgets {
                    try connection.run(
                        "UPDATE oauth_device_guesses SET failures = failures - 1 WHERE key_digest = ? AND failures > 0",
                        [.blob(OAuthDigest.of(budget.key))])
                }
            }
        }
    }
}
