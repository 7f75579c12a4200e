@testable import JMAP
import MailDelivery
import MailSubmission
import Testing
import WebInbox

@testable import PosternApp

/// What the web inbox tells an owner after a send comes from each recipient's recorded status, never from the words
/// of its reply: a recipient kept in the outbox whatever its reply says, and a refusal whose text happens to read
/// like the outbox's is still a refusal.
@Suite("Web inbox send report")
struct WebInboxSendReportTests {
    @Test("held is the status's, with its typed reason: reply texts that say otherwise change nothing")
    func heldFromStatus() {
        let report = JMAPWebInboxSender.report([
            RecipientState(address: "kept@far.example", status: .held(.awaitingApproval)),
            RecipientState(
                address: "refused@far.example",
                status: .failed("554 5.0.0 kept in this server's outbox: a remote server's own words")),
            RecipientState(address: "here@agents.test", status: .delivered("250 2.0.0 delivered to the local mailbox")),
            RecipientState(address: "new@far.example", status: .queued),
            RecipientState(address: "later@far.example", status: .deferred("451 4.4.1 kept in this server's outbox")),
        ])
        var expected = WebInboxSendReport()
        expected.kept = ["kept@far.example"]
        expected.heldReason = .awaitingApproval
        expected.undelivered = ["refused@far.example"]
        expected.delivered = ["here@agents.test"]
        expected.queued = ["new@far.example", "later@far.example"]
        #expect(report == expected)
    }

    @Test("a JMAP refusal of the draft becomes the page's reason by its kind, never by its words")
    func refusalsByKind() {
        let misleading = "forbiddenToSend overQuota noRecipients"
        #expect(JMAPWebInboxSender.draftRefusal(.invalidProperties(misleading, ["to"])) == .invalidAddress)
        #expect(JMAPWebInboxSender.draftRefusal(.invalidProperties(misleading, ["subject"])) == .unwritable)
        #expect(JMAPWebInboxSender.draftRefusal(SetError(.overQuota, description: "")) == .overQuota)
        #expect(JMAPWebInboxSender.draftRefusal(SetError(.tooLarge, description: misleading)) == .unwritable)
    }

    @Test("a refused submission becomes the page's reason by the owner's typed refusal")
    func submissionRefusals() {
        let hourly = SendLimit(name: "hourly", count: 1, windowSeconds: 3600)
        let cases: [(SubmissionRefusal, WebInboxSendRefusal.Reason)] = [
            (.unknownRecipients(["nobody@agents.test"]), .unknownRecipients(["nobody@agents.test"])),
            (.noRecipients, .noRecipients),
            (.limit(SendLimitReached(limit: hourly, freesAt: 0)), .limitReached),
            (.foreignOriginator(.from, sender: "ada@agents.test"), .notAllowed),
            (.foreignMailFrom(sender: "ada@agents.test"), .notAllowed),
            (.senderNotLocal("ada@agents.test"), .notAllowed),
            (.held(.needsOwner), .notAllowed),
            (.tooLarge(maxBytes: 1024), .unwritable),
            (.overQuota(queuedBytes: 10, quota: 5), .unwritable),
        ]
        for (refusal, reason) in cases {
            #expect(JMAPWebInboxSender.submissionRefusal(refusal) == reason, "\(refusal)")
        }
    }
}
