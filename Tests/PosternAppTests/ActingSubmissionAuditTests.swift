import Audit
import Directory
import JMAP
import PosternTestSupport
import Testing

@testable import PosternApp

/// The composition root writes a submission an agent made with a delegated token (at JMAP, or MCP through it) to the
/// owner's trail as the agent's (`agent.sent`), its actor chain in the details; any other submission writes nothing.
@Suite("Audit: an agent's submission for its owner")
struct ActingSubmissionAuditTests {
    @Test("a delegated submission is the current actor's line on the owner's trail, with the chain; others none")
    func recorded() async throws {
        let test = try StorageBackend.sqlite.makeDatabase()
        let log = SQLAuditLog(database: test.database)
        let audit = AuditTrail(log, clock: { 1_800_000_000 })
        var outcome = JMAPService.SubmissionOutcome(
            delivered: 1, keptInOutbox: 0, refused: 0, submissionID: "S1", sender: "ada@agents.test",
            client: "192.0.2.1")
        await JMAPSurface.recordActing(outcome, audit: audit)
        #expect(try await log.events(since: nil, ownerID: nil, limit: 10).isEmpty)

        outcome.delegation = Delegation(ownerID: "owner-1", actorIDs: ["sub-agent", "agent"])
        await JMAPSurface.recordActing(outcome, audit: audit)
        #expect(
            try await log.events(since: nil, ownerID: "owner-1", limit: 10) == [
                AuditEvent(
                    time: 1_800_000_000, actorKind: .app, actorID: "sub-agent", ownerID: "owner-1",
                    action: .agentSentMail, target: "ada@agents.test", clientAddress: "192.0.2.1",
                    details: #"{"submission":"S1","act":"sub-agent agent"}"#)
            ])
    }
}
