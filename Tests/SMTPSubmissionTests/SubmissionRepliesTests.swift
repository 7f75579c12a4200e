import MailDelivery
import SMTPOutcomes
import SMTPServer
import Testing

@testable import MailSubmission
@testable import SMTPSubmission

/// Each submission refusal as the SMTP reply its case names (RFC 5321 4.2, RFC 3463): the code, the enhanced code, and
/// the explanation as the text.
@Suite("Submission refusals in SMTP's words")
struct SubmissionRepliesTests {
    @Test("each refusal has its code and enhanced code")
    func codes() {
        let sender = "ada@agents.test"
        let cases: [(SubmissionRefusal, Int, String)] = [
            (.senderNotLocal(sender), 550, "5.7.1"),
            (.foreignOriginator(.from, sender: sender), 550, "5.7.1"),
            (.foreignMailFrom(sender: sender), 553, "5.7.1"),
            (.noRecipients, 554, "5.5.1"),
            (.unknownRecipients(["nobody@agents.test"]), 550, "5.1.1"),
            (.held(.needsOwner), 550, "5.7.1"),
            (.tooLarge(maxBytes: 1024), 552, "5.3.4"),
            (.overQuota(queuedBytes: 10, quota: 5), 452, "4.2.2"),
        ]
        for (refusal, code, enhanced) in cases {
            let reply = refusal.smtpReply
            #expect(reply.code == code, "\(refusal)")
            #expect(reply.enhancedCode == enhanced, "\(refusal)")
        }
        #expect(
            SubmissionRefusal.foreignOriginator(.from, sender: sender).smtpReply.text
                == "The From of the email must be ada@agents.test.")
        #expect(
            SubmissionRefusal.foreignMailFrom(sender: sender).smtpReply.text.contains("MAIL FROM must be that address"))
    }

    @Test("a Mail.td account's refusal is a 5.7.1 that says why")
    func readOnly() {
        let reply = SubmissionSink.readOnly("mia@mail.test")
        #expect(reply.code == 550)
        #expect(reply.enhancedCode == "5.7.1")
        #expect(reply.text.contains("Mail.td account"))
    }
}
