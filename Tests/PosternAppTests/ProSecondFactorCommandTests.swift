import Foundation
import Logging
import PosternTestSupport
import SecondFactors
import Testing

@testable import PosternOperations

/// `postern pro mfa reset --email E` removes a Pro user's second factor, on the audit trail as `pro.mfa_reset`;
/// `pro show` says where it stands (issue 88 item 3).
@Suite("Operator commands: a Pro user's second factor")
struct ProSecondFactorCommandTests {
    private let logger = Logger(label: "pro-second-factor-command-test")

    @Test("pro show lists the factor; pro mfa reset removes it once, on the trail; an owner's email is nobody's here",
          arguments: StorageBackend.allCases)
    func resetAndShow(_ backend: StorageBackend) async throws {
        let configuration = TestServer.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        _ = try await Operations.createProUser(
            configuration: configuration, email: "bea@example.com", password: "pro-password-1", maxAccounts: nil,
            maxDomains: nil, logger: logger)
        _ = try await Operations.createOwner(
            configuration: configuration, email: "ada@example.com", password: "owner-password-1", logger: logger)
        let twoStep = {
            try await Operations.showProUser(configuration: configuration, email: "bea@example.com", logger: self.logger)?
                .first { $0.hasPrefix("  two-step sign-in: ") }
        }
        let reset = { (email: String) in
            try await Operations.resetProSecondFactor(configuration: configuration, email: email, logger: self.logger)
        }
        #expect(try await twoStep() == "  two-step sign-in: off")
        #expect(try await reset("bea@example.com") == .notSet)

        let database = try Operations.migratedDatabase(configuration, logger: logger)
        let accounts = try Operations.mailboxAccounts(configuration, database: database, logger: logger)
        let bea = try #require(try await accounts.proUserLinkCandidate(email: "bea@example.com"))
        let now = Int64(Date().timeIntervalSince1970)
        let factors = SecondFactorStore(.proUsers, database: database, sealing: nil, clock: { now })
        let secret = try #require(try await factors.secretToConfirm(holder: bea.id))
        let code = factors.totp.code(secret: secret, step: factors.totp.step(at: now))
        #expect(try await factors.confirm(holder: bea.id, code: code)?.count == 10)
        database.close()
        #expect(try await twoStep() == "  two-step sign-in: on (TOTP; 10 recovery codes left)")

        #expect(try await reset("ada@example.com") == .noOwner)
        #expect(try await reset("Bea@Example.com") == .reset)
        #expect(try await twoStep() == "  two-step sign-in: off")
        let audit = try await Operations.auditLines(
            configuration: configuration, since: nil, ownerEmail: nil, limit: 100, logger: logger)
        #expect(audit.filter { $0.contains("pro.mfa_reset") && $0.contains("bea@example.com") }.count == 1)
    }
}
