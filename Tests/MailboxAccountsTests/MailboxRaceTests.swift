import AuthCrypto
import Dispatch
import PosternTestSupport
import Synchronization
import Testing

@testable import MailboxAccounts

@Suite("Mailbox races: single-use challenges and unique addresses under concurrency")
struct MailboxRaceTests {
    @Test(
        "eight instances creating the challenge secret at once on one database all get the same one",
        arguments: StorageBackend.allCases)
    func secretRace(_ backend: StorageBackend) throws {
        let test = try backend.makeDatabase()
        let stores = try (0..<8).map { _ in MailboxStore(database: try test.another()) }
        let secrets = Mutex<[[UInt8]]>([])
        DispatchQueue.concurrentPerform(iterations: stores.count) { index in
            if let secret = try? stores[index].secret(named: "challenge", make: { SecureRandom.bytes(32) }) {
                secrets.withLock { $0.append(secret) }
            }
        }
        let all = secrets.withLock { $0 }
        #expect(all.count == stores.count)
        #expect(Set(all).count == 1)
        #expect(try stores[0].secret(named: "challenge", make: { [0] }) == all.first)
    }

    @Test("one challenge presented 24 times at once gives exactly one 201", arguments: StorageBackend.allCases)
    func challengeRace(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let pow = try await harness.solvedChallenge()
        let statuses = await withTaskGroup(of: Int.self) { group in
            for index in 0..<24 {
                group.addTask {
                    await harness.send(
                        .POST, "/api/accounts",
                        json: MailboxHarness.createBody(address: "race\(index)@mail.localhost", pow: pow)
                    ).status
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 201 }.count == 1)
        #expect(statuses.filter { $0 == 403 }.count == 23)
    }

    @Test(
        "one address claimed 16 times at once (each with its own proof) gives exactly one 201",
        arguments: StorageBackend.allCases)
    func addressRace(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        var proofs: [(id: String, nonce: String)] = []
        for _ in 0..<16 { proofs.append(try await harness.solvedChallenge()) }
        let statuses = await withTaskGroup(of: Int.self) { group in
            for pow in proofs {
                group.addTask {
                    await harness.send(
                        .POST, "/api/accounts",
                        json: MailboxHarness.createBody(address: "same@mail.localhost", pow: pow)
                    ).status
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 201 }.count == 1)
        #expect(statuses.filter { $0 == 409 }.count == 15)
    }

    @Test(
        "one address claimed 16 times at once by Pro bearers gives exactly one 201, and the limit holds",
        arguments: StorageBackend.allCases)
    func proRace(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let token = try await harness.proToken(email: "race@example.com", maxAccounts: 3)
        let same = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    await harness.send(
                        .POST, "/api/accounts",
                        json: MailboxHarness.createBody(address: "same@pro.localhost", pow: nil),
                        bearer: token
                    ).status
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(same.filter { $0 == 201 }.count == 1)
        #expect(same.filter { $0 == 409 }.count == 15)
        let distinct = await withTaskGroup(of: Int.self) { group in
            for index in 0..<16 {
                group.addTask {
                    await harness.send(
                        .POST, "/api/accounts",
                        json: MailboxHarness.createBody(address: "many\(index)@pro.localhost", pow: nil), bearer: token
                    ).status
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(distinct.filter { $0 == 201 }.count == 2)
        #expect(try await harness.service.accounts.listProUsers().first?.accountCount == 3)
    }
}
