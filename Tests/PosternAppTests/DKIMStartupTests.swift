import DKIMKeys
import Dispatch
import Foundation
import Logging
import PosternTestSupport
import Storage
import Synchronization
import Testing

@testable import PosternApp
@testable import PosternOperations

/// DKIM keys exist when they are needed: the agent inbox domain's made at first start (once, whatever instances race),
/// a custom domain's when it is added through the server, and shown in its DNS records.
@Suite("DKIM keys at start-up and for custom domains")
struct DKIMStartupTests {
    @Test(
        "the first start makes the agent inbox domain's RSA and Ed25519 keys; a restart keeps them",
        arguments: StorageBackend.allCases)
    func firstStart(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.agent.inboxDomain = "Agents.Example" }
        let first = try server.runtime.dkimKeys.history(for: "agents.example")
        #expect(first.map(\.algorithm) == [.rsaSHA256, .ed25519SHA256])
        #expect(first.allSatisfy { $0.retiredAt == nil })
        await server.shutdown()
        let again = try await TestServer.start(backend) {
            $0.agent.inboxDomain = "agents.example"
            $0.storage.dataDirectory = server.dataDirectory
        }
        defer { Task { await again.stop() } }
        #expect(try again.runtime.dkimKeys.history(for: "agents.example").map(\.selector) == first.map(\.selector))
    }

    @Test(
        "instances starting at once on one database end with one key per algorithm, the same for each",
        arguments: StorageBackend.allCases)
    func simultaneousStarts(_ backend: StorageBackend) throws {
        let test = try backend.makeDatabase(logger: Logger(label: "dkim-startup-tests"))
        let configuration = {
            var configuration = PosternConfiguration()
            configuration.agent.inboxDomain = "race.example"
            configuration.signingKeys.secret = "the test servers' key secret"
            return configuration
        }()
        let handles = try (0..<3).map { _ in try test.another() }
        let seen = Mutex<[[String]]>([])
        let logger = Logger(label: "dkim-startup-tests")
        DispatchQueue.concurrentPerform(iterations: handles.count) { index in
            if let store = try? PosternRuntime.agentDomainDKIMKeys(
                configuration, database: handles[index], clock: { 1_795_602_199 }, logger: logger),
                let keys = try? store.history(for: "race.example")
            {
                seen.withLock { $0.append(keys.map(\.selector)) }
            }
        }
        let selectors = seen.withLock { $0 }
        #expect(selectors.count == handles.count)
        #expect(Set(selectors).count == 1)
        let store = try PosternRuntime.agentDomainDKIMKeys(
            configuration, database: test.database, clock: { 1_795_602_200 }, logger: logger)
        #expect(try store.history(for: "race.example").map(\.selector) == selectors.first)
    }

    @Test(
        "a Pro user's domain added through the server gets keys; dns_records lists their _domainkey TXT records",
        arguments: StorageBackend.allCases)
    func proDomainThroughServer(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        _ = try await Operations.createProUser(
            configuration: server.runtime.configuration, email: "dkim@example.com", password: "pro-password",
            maxAccounts: 1, maxDomains: 1, logger: Logger(label: "test"))
        let client = try server.client()
        let login = try await client.json(
            "POST", "/api/user/login", ["email": "dkim@example.com", "password": "pro-password"])
        let token = try #require(try login.json()["token"] as? String)
        let created = try await client.json(
            "POST", "/api/user/domains", ["domain": "Brand.Example"], headers: [("Authorization", "Bearer \(token)")])
        #expect(created.status == 201)
        let records = try #require(try created.json()["dns_records"] as? [[String: Any]])
        let keys = try server.runtime.dkimKeys.history(for: "brand.example")
        #expect(keys.count == 2)
        #expect(records.map { $0["type"] as? String } == ["TXT", "MX", "TXT", "TXT"])
        #expect(records.dropFirst(2).map { $0["host"] as? String } == keys.map(\.txtRecordName))
        #expect(records.dropFirst(2).map { $0["value"] as? String } == keys.map(\.txtRecordValue))
    }
}
