import AgentAuth
import AppPasswords
import Foundation
import Logging
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// `postern owner app-password create|list|revoke` (issue 87 item 2): an owner's app passwords by the operator, for an
/// inbox the owner holds only, the secret printed once, on the audit trail.
@Suite("Operator commands: owners' app passwords")
struct OwnerAppPasswordCommandTests {
    private let logger = Logger(label: "owner-app-password-command-test")

    @Test("create for an inbox the owner holds (by address or id), list, revoke; refusals named", arguments: StorageBackend.allCases)
    func createListRevoke(_ backend: StorageBackend) async throws {
        let configuration = TestServer.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        _ = try await Operations.createOwner(
            configuration: configuration, email: "ada@example.com", password: "owner-password-1", logger: logger)
        _ = try await Operations.createOwner(
            configuration: configuration, email: "bob@example.com", password: "owner-password-1", logger: logger)
        let database = try Operations.migratedDatabase(configuration, logger: logger)
        let owners = try await Operations.ownerStore(database, configuration).list()
        let ada = try #require(owners.first { $0.email == "ada@example.com" })
        let bob = try #require(owners.first { $0.email == "bob@example.com" })
        let inboxes = AgentOwnedInboxes(
            accounts: AgentAccountStore(database: database), domain: configuration.agent.inboxDomain,
            clock: { 1_800_000_000 })
        let own = try await inboxes.createInbox(username: "ada-mutt", ownerID: ada.id).inbox
        let foreign = try await inboxes.createInbox(username: "bob-mutt", ownerID: bob.id).inbox
        database.close()

        func create(_ email: String, _ inbox: String, name: String = "mutt") async throws -> (line: String, secret: String) {
            try await Operations.createAppPassword(
                configuration: configuration, email: email, inbox: inbox, doors: [.imap, .submission], name: name,
                logger: logger)
        }
        await #expect(throws: Operations.AppPasswordCommandError.unknownInbox) {
            try await create("ada@example.com", foreign.address)
        }
        await #expect(throws: Operations.AppPasswordCommandError.unknownOwner) {
            try await create("nobody@example.com", own.address)
        }
        await #expect(throws: Operations.AppPasswordCommandError.refused(.invalidName)) {
            try await create("ada@example.com", own.address, name: "")
        }
        let (line, secret) = try await create("Ada@Example.com", own.address.uppercased())
        #expect(AppPasswordSecret.normalized(secret) != nil)
        #expect(line.contains("  mutt  \(own.address)  imap,submission  created ") && line.hasSuffix("never used"))
        let byID = try await create("ada@example.com", own.accountID, name: "phone")
        #expect(byID.secret != secret)

        let listed = try await Operations.listAppPasswords(
            configuration: configuration, email: "ada@example.com", logger: logger)
        #expect(listed.count == 2 && !listed.joined().contains(secret))
        let id = try #require(line.split(separator: " ").first.map(String.init))
        #expect(try await !Operations.revokeAppPassword(
            configuration: configuration, email: "bob@example.com", id: id, logger: logger))
        #expect(try await Operations.revokeAppPassword(
            configuration: configuration, email: "ada@example.com", id: id, logger: logger))
        #expect(try await Operations.listAppPasswords(
            configuration: configuration, email: "ada@example.com", logger: logger).count == 1)
        let audit = try await Operations.auditLines(
            configuration: configuration, since: nil, ownerEmail: nil, limit: 100, logger: logger)
        #expect(audit.contains { $0.contains("app_password.created") } && audit.contains { $0.contains("app_password.revoked") })
        #expect(!audit.joined().contains(secret))
    }
}
