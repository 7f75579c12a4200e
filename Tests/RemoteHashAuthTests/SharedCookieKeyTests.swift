import AuthCrypto
import Dispatch
import PosternTestSupport
import Storage
import Synchronization
import Testing

@testable import RemoteHashAuth

/// The pages' signed cookies are keyed by a secret in the database, so any instance reads what another set.
@Suite("Cookie key shared by instances", .serialized)
struct SharedCookieKeyTests {
    @Test("eight instances starting at once on one database get one key; a flash cookie one sets verifies on another",
          arguments: StorageBackend.allCases)
    func sharedKey(_ backend: StorageBackend) throws {
        let test = try backend.makeDatabase()
        let handles = try (0..<8).map { _ in try test.another() }
        let keys = Mutex<[[UInt8]]>([])
        DispatchQueue.concurrentPerform(iterations: handles.count) { index in
            let key = try? SharedSecrets(database: handles[index])
                .secret(named: "remote-hash.cookies") { SecureRandom.bytes(32) }
            if let key { keys.withLock { $0.append(key) } }
        }
        let all = keys.withLock { $0 }
        #expect(all.count == handles.count)
        #expect(Set(all).count == 1)

        let first = CookieSigner(key: all[0], secure: false)
        let second = CookieSigner(key: all[1], secure: false)
        let header = first.signedSetCookie(CookieSigner.flashCookie, "Registered.", now: 1_000)
        let value = try #require(header.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last)
        #expect(second.signedValue(CookieSigner.flashCookie, String(value), now: 1_010) == "Registered.")
        let stranger = CookieSigner(key: SecureRandom.bytes(32), secure: false)
        #expect(stranger.signedValue(CookieSigner.flashCookie, String(value), now: 1_010) == nil)
    }
}
