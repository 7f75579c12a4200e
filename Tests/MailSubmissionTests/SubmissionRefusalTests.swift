import MailDelivery
import MailSubmission
import Testing

/// The refusal's words for display: known answers (JMAP's descriptions and Mailpit's words after `Failed: ` are
/// these).
@Suite("Submission refusal")
struct SubmissionRefusalTests {
    @Test("each refusal of the queue says what was refused and that nothing was sent")
    func explanations() {
        let reached = SendLimitReached(
            limit: SendLimit(name: "daily", count: 1000, windowSeconds: 86_400), freesAt: 1_700_000_000)
        var owner = reached
        owner.limit.scope = .holder
        #expect(
            SubmissionRefusal.limit(reached).explanation
                == "The daily limit of 1000 recipients on other domains per sender is reached; it frees by "
                + "2023-11-14T22:13:20Z. Nothing was sent.")
        #expect(
            SubmissionRefusal.limit(owner).explanation
                == "The daily limit of 1000 recipients on other domains for all the inboxes of this inbox's owner "
                + "together is reached; it frees by 2023-11-14T22:13:20Z. Nothing was sent.")
        #expect(
            SubmissionRefusal.tooLarge(maxBytes: 1024).explanation
                == "The email is larger than the 1024 bytes this server sends to other domains. Nothing was sent.")
        #expect(
            SubmissionRefusal.overQuota(queuedBytes: 700, quota: 1000).explanation
                == "Mail of yours still waiting to leave (700 bytes) and this email would pass your quota of 1000 "
                + "bytes; it frees as the queue delivers. Nothing was sent.")
        #expect(
            SubmissionRefusal.unknownRecipients(["a@b.test", "c@b.test"]).explanation
                == "No such mailbox here: a@b.test, c@b.test. Nothing was sent.")
        #expect(
            SubmissionRefusal.held(.needsOwner).explanation
                == "Mail to other domains is held: this inbox needs an owner before it can write outside. "
                + "Nothing was sent.")
    }
}
