import AuthCrypto
import DKIMKeys
import Dispatch
import Foundation
import MailAuth
import PosternTestSupport
import Storage
import Synchronization
import Testing

/// The DKIM key table on both backends: keys made once on first need, shared by every handle on the database,
/// rotated under new selectors, sealed on PostgreSQL and PEM on SQLite, and signing mail the verifier passes from
/// the records the store publishes.
@Suite("DKIM keys")
struct DKIMKeyStoreTests {
    static let secret = "a-test-secret-of-more-than-16-bytes"
    static let now: Int64 = 1_795_602_199

    /// The DNS answers a receiver would get once the store's records are published.
    struct PublishedRecords: MailAuthDNS {
        let records: [String: [String]]
        func txt(_ name: String) async -> DNSLookup<[String]> { records[name].map { .found($0) } ?? .noSuchName }
        func mx(_ name: String) async -> DNSLookup<[String]> { .noSuchName }
        func addresses(_ name: String, ipv6: Bool) async -> DNSLookup<[[UInt8]]> { .noSuchName }
    }

    static func open(_ database: any SQLDatabase, _ clock: TestClock, secret: String? = secret) throws
        -> DKIMKeyStore
    {
        try DKIMKeyStore(database: database, sealingSecret: secret, clock: { clock.now })
    }

    static let message = Array(
        ("From: A <a@mail.example>\r\nTo: b@example.org\r\nSubject: hi\r\n"
            + "Date: Wed, 25 Nov 2026 10:00:00 +0000\r\n\r\nhi\r\n").utf8)

    @Test(
        "a domain's keys are made on first need: RSA-2048 then Ed25519, the same on every handle",
        arguments: StorageBackend.allCases)
    func firstNeed(backend: StorageBackend) throws {
        let test = try backend.makeDatabase()
        let clock = TestClock(Self.now)
        let store = try Self.open(test.database, clock)
        let keys = try store.keys(for: "Mail.Example.")
        #expect(keys.map(\.algorithm) == [.rsaSHA256, .ed25519SHA256])
        #expect(keys.allSatisfy { $0.domain == "mail.example" && $0.createdAt == Self.now && $0.retiredAt == nil })
        #expect(keys.map(\.selector).allSatisfy { $0.hasSuffix(keys[0].selector.suffix(16)) })
        #expect(keys[0].selector.hasPrefix("rsa-20261125-") && keys[1].selector.hasPrefix("ed25519-20261125-"))
        #expect(keys[0].txtRecordName == keys[0].selector + "._domainkey.mail.example")
        #expect(keys[0].txtRecordValue.hasPrefix("v=DKIM1; k=rsa; p=MIIBIjAN"))  // a 2048-bit SubjectPublicKeyInfo
        #expect(keys[1].txtRecordValue.hasPrefix("v=DKIM1; k=ed25519; p="))
        let again = try Self.open(try test.another(), clock).keys(for: "mail.example")
        #expect(again.map(\.selector) == keys.map(\.selector))
        #expect(again.map(\.txtRecordValue) == keys.map(\.txtRecordValue))
        let count = try test.database.readSync { try $0.query("SELECT count(*) AS n FROM dkim_keys", []) }
        #expect(count.first?.int("n") == 2)
    }

    @Test(
        "handles asking at once for a new domain end with one key per algorithm",
        arguments: StorageBackend.allCases)
    func simultaneousFirstNeed(backend: StorageBackend) throws {
        let test = try backend.makeDatabase()
        let clock = TestClock(Self.now)
        let stores = try (0..<3).map { _ in try Self.open(try test.another(), clock) }
        let seen = Mutex<[[String]]>([])
        DispatchQueue.concurrentPerform(iterations: stores.count) { index in
            if let keys = try? stores[index].keys(for: "race.example") {
                seen.withLock { $0.append(keys.map(\.selector)) }
            }
        }
        let selectors = seen.withLock { $0 }
        #expect(selectors.count == stores.count)
        let selectorLists: Set<String> = Set(selectors.map { $0.joined(separator: ",") })
        #expect(selectorLists.count == 1)
        let count = try test.database.readSync { try $0.query("SELECT count(*) AS n FROM dkim_keys", []) }
        #expect(count.first?.int("n") == 2)
    }

    @Test(
        "mail signed with a domain's keys passes the verifier with the records the store publishes",
        arguments: StorageBackend.allCases)
    func signsVerifiably(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let clock = TestClock(Self.now)
        let store = try Self.open(test.database, clock)
        let signer = try store.signer(for: "mail.example")
        let signed = try signer.signed(Self.message)
        let keys = try store.keys(for: "mail.example")
        let dns = PublishedRecords(
            records: Dictionary(uniqueKeysWithValues: keys.map { ($0.txtRecordName, [$0.txtRecordValue]) }))
        let outcomes = await DKIMVerifier(dns: dns, now: { Self.now }).verify(signed)
        #expect(outcomes.map(\.result) == [.pass, .pass])
        #expect(outcomes.map(\.selector) == keys.map(\.selector))
        #expect(String(decoding: signed, as: UTF8.self).contains("t=\(Self.now);"))
    }

    @Test(
        "rotation: new selectors sign from then on, every handle sees them, the old keys stay as retired",
        arguments: StorageBackend.allCases)
    func rotation(backend: StorageBackend) async throws {
        let test = try backend.makeDatabase()
        let clock = TestClock(Self.now)
        let store = try Self.open(test.database, clock)
        let other = try Self.open(try test.another(), clock)
        let old = try store.keys(for: "mail.example")
        #expect(try other.keys(for: "mail.example").map(\.selector) == old.map(\.selector))
        clock.advance(86_400)
        let new = try store.rotate(domain: "mail.example")
        #expect(new.map(\.algorithm) == [.rsaSHA256, .ed25519SHA256])
        #expect(Set(new.map(\.selector)).isDisjoint(with: old.map(\.selector)))
        #expect(new[0].selector.hasPrefix("rsa-20261126-"))
        #expect(try other.keys(for: "mail.example").map(\.selector) == new.map(\.selector))
        let history = try other.history(for: "mail.example")
        #expect(history.map(\.selector) == old.map(\.selector) + new.map(\.selector))
        #expect(history.map(\.retiredAt) == [Self.now + 86_400, Self.now + 86_400, nil, nil])
        // The other handle signs with the new keys: a receiver that has only the new records passes both.
        let signed = try other.signer(for: "mail.example").signed(Self.message)
        let dns = PublishedRecords(
            records: Dictionary(uniqueKeysWithValues: new.map { ($0.txtRecordName, [$0.txtRecordValue]) }))
        #expect(await DKIMVerifier(dns: dns, now: { clock.now }).verify(signed).map(\.result) == [.pass, .pass])
    }

    @Test(
        "PostgreSQL: the private keys are sealed, bound to their row, and need POSTERN_KEY_SECRET; SQLite: PKCS#8 PEM",
        arguments: StorageBackend.allCases)
    func storage(backend: StorageBackend) throws {
        let test = try backend.makeDatabase()
        let clock = TestClock(Self.now)
        _ = try Self.open(test.database, clock).keys(for: "mail.example")
        _ = try Self.open(test.database, clock).keys(for: "other.example")
        let rows = try test.database.readSync {
            try $0.query("SELECT domain, selector, private_key FROM dkim_keys ORDER BY domain, selector", [])
        }
        let stored = rows.compactMap { $0.blob("private_key") }.map { String(decoding: $0, as: UTF8.self) }
        #expect(stored.count == 4)
        switch backend {
        case .sqlite:
            #expect(stored.allSatisfy { $0.hasPrefix("-----BEGIN PRIVATE KEY-----") })
            #expect(try Self.open(test.database, clock, secret: nil).keys(for: "mail.example").count == 2)
        case .postgres:
            #expect(stored.allSatisfy { !$0.contains("PRIVATE KEY") })
            #expect(throws: DKIMKeyError.self) { try Self.open(test.database, clock, secret: nil) }
            #expect(throws: DKIMKeyError.self) { try Self.open(test.database, clock, secret: "short") }
            let wrongSecret = try Self.open(try test.another(), clock, secret: "another-secret-of-enough-length")
            let refused = #expect(throws: DKIMKeyError.self) { try wrongSecret.keys(for: "mail.example") }
            #expect(refused?.code == .configuration)
            // other.example's sealed RSA key copied into mail.example's RSA row does not open there.
            _ = try test.database.writeSync { connection in
                try connection.run(
                    """
                    UPDATE dkim_keys SET private_key = (SELECT private_key FROM dkim_keys
                        WHERE domain = 'other.example' AND algorithm = 'rsa-sha256')
                    WHERE domain = 'mail.example' AND algorithm = 'rsa-sha256'
                    """, [])
            }
            let fresh = try Self.open(try test.another(), clock)
            #expect(throws: DKIMKeyError.self) { try fresh.keys(for: "mail.example") }
        }
    }

    @Test("a name that is not a domain is refused before any key is made", arguments: StorageBackend.allCases)
    func invalidDomain(_ backend: StorageBackend) throws {
        let test = try backend.makeDatabase()
        let store = try Self.open(test.database, TestClock(Self.now))
        let long = String(repeating: "a", count: 64) + ".example"
        for name in ["", "exa mple.com", "-bad.example", "a..b", "x/y.example", "b\u{e9}b.example", long] {
            #expect(throws: DKIMKeyError.self) { try store.keys(for: name) }
        }
        let count = try test.database.readSync { try $0.query("SELECT count(*) AS n FROM dkim_keys", []) }
        #expect(count.first?.int("n") == 0)
    }
}
