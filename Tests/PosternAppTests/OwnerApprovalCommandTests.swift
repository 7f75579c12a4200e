import Foundation
import Logging
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// `postern owner create` makes an owner the operator answers for, `postern owner approve --email E` approves one who
/// signed up (and `--withdraw` takes it back), and `postern owner list` says which (issue 49).
@Suite("Operator commands: owners approved to send outside")
struct OwnerApprovalCommandTests {
    private let logger = Logger(label: "owner-approval-command-test")

    @Test(
        "owner create approves; a signed-up owner waits until owner approve; --withdraw; an unknown email is false",
        arguments: StorageBackend.allCases)
    func approve(_ backend: StorageBackend) async throws {
        let configuration = TestServer.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        let made = try await Operations.createOwner(
            configuration: configuration, email: "ada@example.com", password: "owner-password-1", logger: logger)
        #expect(made.contains("  approved 20"), "\(made)")
        // A sign-up's owner, as /owner/sign-up makes it (OwnerStore.create without `approved`: OwnersTests).
        let database = try Operations.migratedDatabase(configuration, logger: logger)
        _ = try database.writeSync {
            try $0.run(
                "INSERT INTO owners (id, email, password_hash, created_at) VALUES ('o-bea', 'bea@example.com', '', 1)")
        }
        database.close()

        func line(_ email: String) async throws -> String {
            try #require(
                try await Operations.listOwners(configuration: configuration, logger: logger).first {
                    $0.contains("  \(email)  ")
                })
        }
        #expect(try await line("bea@example.com").hasSuffix("  waiting for approval"))
        #expect(try await line("ada@example.com").contains("  approved 20"))
        #expect(
            try await Operations.approveOwner(configuration: configuration, email: "Bea@Example.com", logger: logger))
        #expect(try await line("bea@example.com").contains("  approved 20"))
        #expect(
            try await Operations.approveOwner(
                configuration: configuration, email: "bea@example.com", approved: false, logger: logger))
        #expect(try await line("bea@example.com").hasSuffix("  waiting for approval"))
        #expect(
            try await !Operations.approveOwner(
                configuration: configuration, email: "nobody@example.com", logger: logger))
        let audit = try await Operations.auditLines(
            configuration: configuration, since: nil, ownerEmail: nil, limit: 100, logger: logger)
        #expect(audit.contains { $0.contains("owner approve") && $0.contains("Bea@Example.com") })
        #expect(audit.contains { $0.contains("owner approve --withdraw") })
    }
}
