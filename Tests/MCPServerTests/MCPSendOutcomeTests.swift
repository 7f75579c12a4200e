import JSON
import SMTPOutcomes
import Testing

@testable import MCPServer

/// What send_email tells an agent of each recipient comes from JMAP's `delivered` and Postern's typed `heldReason`,
/// never from the reply's words.
@Suite("MCP send outcomes")
struct MCPSendOutcomeTests {
    @Test("delivered, queued, held with its reason in words and as a code, failed; reply texts decide nothing")
    func outcomes() throws {
        let status = try JSONValue.parse(
            Array(
                #"""
                {"here@agents.test":{"smtpReply":"250 2.0.0 delivered to the local mailbox","delivered":"yes"},
                 "far@example.org":{"smtpReply":"250 2.0.0 queued for delivery","delivered":"queued"},
                 "held@example.org":{"smtpReply":"550 5.7.1 words","delivered":"no","heldReason":"needs_owner"},
                 "full@agents.test":{"smtpReply":"552 5.2.2 held in this server's outbox","delivered":"no"},
                 "odd@example.org":{"smtpReply":"250 held","delivered":"no","heldReason":"no_such_reason"}}
                """#.utf8))
        let outcomes = MCPTools.recipients(status).map(\.json)
        #expect(
            outcomes == [
                .object([("address", "here@agents.test"), ("status", "delivered")]),
                .object([("address", "far@example.org"), ("status", "queued")]),
                .object([
                    ("address", "held@example.org"), ("status", "held"),
                    ("reason", "this inbox needs an owner before it can write outside"), ("reason_code", "needs_owner"),
                ]),
                .object([("address", "full@agents.test"), ("status", "failed")]),
                .object([("address", "odd@example.org"), ("status", "failed")]),
            ])
        #expect(HeldReason.allCases.map(\.code) == ["outbound_off", "needs_owner", "awaiting_approval"])
    }
}
