import MetricsTestKit
import PosternTestSupport
import Testing

@testable import MailboxAccounts

@Suite("Mailbox metrics")
struct MailboxMetricsTests {
    @Test(
        "proof verifications by result, accounts created by plan, rate-limit rejections by class",
        arguments: StorageBackend.allCases)
    func counters(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend) { $0.rateLimitsEnabled = true }
        let metrics = harness.metrics
        func count(_ label: String, _ dimensions: [(String, String)]) throws -> Int64 {
            try metrics.expectCounter(label, dimensions).totalValue
        }
        let pow = try await harness.solvedChallenge(remote: "192.0.2.1")
        let salt = try harness.service.challenges.open(id: pow.id, now: harness.clock.seconds).salt
        let bad = try #require(
            (0..<10_000).map(String.init).first {
                !ProofOfWork.isValid(salt: salt, nonce: $0, difficulty: MailboxHarness.difficulty)
            })
        _ = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "m@mail.localhost", pow: (pow.id, bad)),
            remote: "192.0.2.2")
        _ = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "m@mail.localhost", pow: pow),
            remote: "192.0.2.3")
        _ = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "n@mail.localhost", pow: pow),
            remote: "192.0.2.4")
        let surface = [("surface", "mailbox")]
        #expect(try count("postern_pow_verifications_total", surface + [("result", "insufficient_bits")]) == 1)
        #expect(try count("postern_pow_verifications_total", surface + [("result", "valid")]) == 1)
        #expect(try count("postern_pow_verifications_total", surface + [("result", "replayed")]) == 1)
        #expect(try count("postern_mailbox_accounts_created_total", [("plan", "free")]) == 1)
        _ = await harness.send(
            .POST, "/api/accounts", json: MailboxHarness.createBody(address: "o@mail.localhost", pow: pow),
            remote: "192.0.2.4")
        #expect(
            try count("postern_rate_limit_rejections_total", surface + [("class", "free_account_creation")]) == 1)
        #expect(try count("postern_rate_limit_rejections_total", surface + [("class", "public")]) == 0)
    }
}
