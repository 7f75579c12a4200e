import DKIMKeys
import PosternTestSupport
import Storage
import Testing

/// The keys of domains nothing serves or claims any more: retired at once, deleted after the grace period.
@Suite("DKIM keys: the purge")
struct DKIMKeyPurgeTests {
    @Test(
        "a domain no claim holds loses its keys: retired now, deleted 30 days on; served and claimed domains keep theirs",
        arguments: StorageBackend.allCases)
    func unclaimedDomains(backend: StorageBackend) throws {
        let test = try backend.makeDatabase()
        let clock = TestClock()
        let store = try DKIMKeyStoreTests.open(test.database, clock)
        for domain in ["agents.test", "claimed.example", "gone.example"] { _ = try store.keys(for: domain) }
        try test.database.writeSync { connection in
            try connection.run(
                "INSERT INTO owners (id, email, password_hash, created_at) VALUES ('o1', 'ada@example.com', 'x', 1)")
            try connection.run(
                """
                INSERT INTO custom_domain_claims (id, owner_id, domain, verify_token, created_at)
                VALUES ('c1', 'o1', 'claimed.example', 't', 1)
                """)
        }
        func rows() throws -> [String: (keys: Int, active: Int)] {
            try test.database.writeSync { connection in
                var counts: [String: (keys: Int, active: Int)] = [:]
                for row in try connection.query("SELECT domain, retired_at FROM dkim_keys", []) {
                    let domain = row.text("domain") ?? ""
                    let active = row.int("retired_at") == nil ? 1 : 0
                    counts[domain] = ((counts[domain]?.keys ?? 0) + 1, (counts[domain]?.active ?? 0) + active)
                }
                return counts
            }
        }
        let now = clock.now
        let keep: Set<String> = ["agents.test"]
        #expect(try test.database.writeSync { try DKIMKeyPurge.run($0, now: now, keep: keep) } == 0)
        var counts = try rows()
        #expect(counts["gone.example"]?.keys == 2 && counts["gone.example"]?.active == 0)
        #expect(counts["claimed.example"]?.active == 2 && counts["agents.test"]?.active == 2)
        // A day on, and to the last second of the grace period: kept, retired.
        #expect(try test.database.writeSync { try DKIMKeyPurge.run($0, now: now + 86_400, keep: keep) } == 0)
        #expect(try rows()["gone.example"]?.keys == 2)
        let grace = DKIMKeyPurge.defaultGrace
        #expect(try test.database.writeSync { try DKIMKeyPurge.run($0, now: now + grace - 1, keep: keep) } == 0)
        #expect(try test.database.writeSync { try DKIMKeyPurge.run($0, now: now + grace + 1, keep: keep) } == 2)
        counts = try rows()
        #expect(counts["gone.example"] == nil)
        #expect(counts["claimed.example"]?.keys == 2 && counts["agents.test"]?.keys == 2)
        // A domain that lost its claim follows: its keys retire at the next run.
        _ = try test.database.writeSync { try $0.run("DELETE FROM custom_domain_claims WHERE id = 'c1'") }
        _ = try test.database.writeSync { try DKIMKeyPurge.run($0, now: now + grace + 2, keep: keep) }
        #expect(try rows()["claimed.example"]?.active == 0)
        let fresh = try store.keys(for: "claimed.example")
        #expect(fresh.count == 2)
        #expect(try rows()["claimed.example"]?.active == 2)
    }
}
