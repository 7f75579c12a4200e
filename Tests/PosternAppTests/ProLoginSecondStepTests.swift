import Foundation
import Logging
import PosternTestSupport
import SecondFactors
import Storage
import Testing
import WebInbox

@testable import PosternApp
@testable import PosternOperations

/// Mail.td's `POST /api/user/login` asks the web inbox's question (issue 88): it refuses a Pro user's password exactly
/// when POSTERN_PRO_SECOND_FACTOR would ask that password a second step, so `required-for-passwords` gives no Pro JWT
/// to a user who has not set a factor up, and `off` does not lock out one who set it up before.
@Suite("Mail.td: POST /api/user/login follows the Pro second factor's policy")
struct ProLoginSecondStepTests {
    private let logger = Logger(label: "pro-login-second-step-test")

    @Test("off: never refused; optional: refused when enrolled; required-for-passwords: always refused")
    func followsPolicy() async throws {
        let configuration = TestServer.configuration(.sqlite)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        _ = try await Operations.createProUser(
            configuration: configuration, email: "bea@example.com", password: "pro-password-1", maxAccounts: nil,
            maxDomains: nil, logger: logger)
        let database = try Operations.migratedDatabase(configuration, logger: logger)
        defer { database.close() }
        let accounts = try Operations.mailboxAccounts(configuration, database: database, logger: logger)
        let bea = try #require(try await accounts.proUserLinkCandidate(email: "bea@example.com"))
        let now = Int64(Date().timeIntervalSince1970)
        let factors = SecondFactorStore(.proUsers, database: database, sealing: nil, clock: { now })
        /// Each policy's answer, by its POSTERN_PRO_SECOND_FACTOR value.
        func refused() async throws -> [String: Bool] {
            var answers: [String: Bool] = [:]
            for policy in WebInboxConfiguration.proSecondFactorPolicies {
                var webInbox = WebInboxConfiguration(publicURL: "http://127.0.0.1")
                webInbox.proSecondFactor = policy
                let service = try Surfaces.mailboxService(
                    accounts: accounts, ledger: ChallengeLedger(database: database), proSecondFactors: factors,
                    webInbox: webInbox, logger: logger)
                answers[policy.rawValue] = try await service.proPasswordAsksSecondStep(bea.id)
            }
            return answers
        }
        #expect(try await refused() == ["off": false, "optional": false, "required-for-passwords": true])

        let secret = try #require(try await factors.secretToConfirm(holder: bea.id))
        let code = factors.totp.code(secret: secret, step: factors.totp.step(at: now))
        #expect(try await factors.confirm(holder: bea.id, code: code)?.count == 10)
        #expect(try await refused() == ["off": false, "optional": true, "required-for-passwords": true])
    }
}
