import Foundation
import Logging
import Owners
import PosternTestSupport
import SecondFactors
import TOTP
import Testing

@testable import PosternOperations

/// `postern owner mfa reset --email E` removes an owner's second factor (a lost authenticator app), on the audit trail
/// as `owner.mfa_reset`; `owner show` says where it stands (issue 88 item 3).
@Suite("Operator commands: an owner's second factor")
struct OwnerSecondFactorCommandTests {
    private let logger = Logger(label: "owner-second-factor-command-test")

    @Test("owner show says on with the codes left; mfa reset removes it once, on the trail", arguments: StorageBackend.allCases)
    func resetAndShow(_ backend: StorageBackend) async throws {
        let configuration = TestServer.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        _ = try await Operations.createOwner(
            configuration: configuration, email: "ada@example.com", password: "owner-password-1", logger: logger)
        let show = {
            try await Operations.showOwner(configuration: configuration, email: "ada@example.com", logger: self.logger)?
                .last
        }
        let reset = { (email: String) in
            try await Operations.resetOwnerSecondFactor(configuration: configuration, email: email, logger: self.logger)
        }
        #expect(try await show() == "  two-step sign-in: off")
        #expect(try await reset("ada@example.com") == .notSet)

        let database = try Operations.migratedDatabase(configuration, logger: logger)
        let ada = try #require(try await Operations.ownerStore(database, configuration).list().first)
        let now = Int64(Date().timeIntervalSince1970)
        let factors = OwnerSecondFactors(SecondFactorStore(.owners, database: database, sealing: nil, clock: { now }))
        let secret = try #require(try await factors.begin(ownerID: ada.id))
        #expect(try await show() == "  two-step sign-in: set up, not confirmed (asks for nothing yet)")
        let code = factors.totp.code(secret: secret, step: factors.totp.step(at: now))
        #expect(try await factors.confirm(ownerID: ada.id, code: code)?.count == 10)
        database.close()
        #expect(try await show() == "  two-step sign-in: on (TOTP; 10 recovery codes left)")

        #expect(try await reset("nobody@example.com") == .noOwner)
        #expect(try await reset("Ada@Example.com") == .reset)
        #expect(try await show() == "  two-step sign-in: off")
        #expect(try await reset("ada@example.com") == .notSet)
        let audit = try await Operations.auditLines(
            configuration: configuration, since: nil, ownerEmail: nil, limit: 100, logger: logger)
        #expect(audit.filter { $0.contains("owner.mfa_reset") && $0.contains("ada@example.com") }.count == 1)
    }
}
