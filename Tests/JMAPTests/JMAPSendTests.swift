import ClientAddress
import Directory
import JMAP
import JSON
import MailDelivery
import SMTPOutcomes
import PosternTestSupport
import Testing

/// The one in-process sender (``JMAPService/send(_:as:client:requestID:)``) that MCP's tools and the web inbox use: a
/// typed message in, the email and its submission out, or the `SetError` of the step that refused, with nothing left.
@Suite("JMAP in-process send")
struct JMAPSendTests {
    let client = ClientAddressKey(peer: "192.0.2.1")

    /// The ids of `principal`'s emails in `mailbox`.
    func ids(_ harness: JMAPServiceHarness, _ bearer: String, _ accountID: String, in mailbox: String) async throws
        -> [String]
    {
        let query = ##"[["Email/query",{"accountId":"\##(accountID)","filter":{"inMailbox":"\##(mailbox)"}},"q"]]"##
        let answer = try await harness.api(bearer, query)
        return answer.first?.arrayValue?[1]["ids"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    @Test(
        "a message in, the email and its submission out: delivered here, kept in the outbox, the copy in Sent",
        arguments: StorageBackend.allCases)
    func sends(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        var message = SubmissionDraft(to: ["bob@mail.test"], subject: "Typed", body: "Hello Bob")
        message.cc = ["carol@elsewhere.test"]
        let sent = try await harness.service.send(message, as: JMAPServiceHarness.ada, client: client, requestID: "r1")
        #expect(sent.deliveryStatus["bob@mail.test"]?["delivered"]?.stringValue == "yes")
        #expect(sent.deliveryStatus["carol@elsewhere.test"]?["delivered"]?.stringValue == "no")
        // Recorded in the ledger like every submission: the outside recipient held, as outbound delivery is off.
        #expect(
            sent.recipients == [
                RecipientState(address: "bob@mail.test", status: .delivered("250 2.0.0 delivered to the local mailbox")),
                RecipientState(address: "carol@elsewhere.test", status: .held(.outboundOff)),
            ])
        #expect(sent.submissionID.hasPrefix("S"))
        #expect(try await ids(harness, "ada", "acct-ada", in: "sent") == [sent.emailID])
        #expect(try await ids(harness, "ada", "acct-ada", in: "drafts").isEmpty)
        #expect(try await harness.store.page(address: "bob@mail.test", page: 1).map(\.subject) == ["Typed"])
        #expect(try await harness.store.outbox().map(\.recipients) == [["carol@elsewhere.test"]])
    }

    @Test(
        "filed as read: the sent copy is $seen, no longer $draft; otherwise it keeps the keywords it was written with",
        arguments: StorageBackend.allCases)
    func filing(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        var message = SubmissionDraft(to: ["bob@mail.test"], subject: "Mine", body: "b")
        message.filedAsRead = true
        let read = try await harness.service.send(message, as: JMAPServiceHarness.ada, client: client, requestID: "r")
        message.filedAsRead = false
        let plain = try await harness.service.send(message, as: JMAPServiceHarness.ada, client: client, requestID: "r")
        let get = ##"[["Email/get",{"accountId":"acct-ada","ids":["\##(read.emailID)","\##(plain.emailID)"],"properties":["keywords"]},"g"]]"##
        let list = try #require(try await harness.api("ada", get).first?.arrayValue?[1]["list"]?.arrayValue)
        #expect(list.map { $0["keywords"] } == [.object([("$seen", true)]), .object([])])
    }

    @Test(
        "a refused submission is its SetError, typed; the draft is destroyed again, even for a mail.send-only grant",
        arguments: StorageBackend.allCases)
    func refusedSubmission(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let ada = JMAPServiceHarness.ada
        let sendOnly = Principal(accountID: ada.accountID, mailbox: ada.mailbox, permissions: .send)
        for principal in [ada, sendOnly] {
            let message = SubmissionDraft(to: ["nobody@mail.test"], subject: "Lost", body: "?")
            let failure = await #expect(throws: SendFailure.self) {
                try await harness.service.send(message, as: principal, client: client, requestID: "r")
            }
            guard case .refused(.submission, let error) = failure else {
                Issue.record("not a refused submission: \(String(describing: failure))")
                continue
            }
            #expect(error.kind == .invalidRecipients)
            #expect(error.invalidRecipients == ["nobody@mail.test"])
            #expect(error.description.hasSuffix("Nothing was sent."))
        }
        #expect(try await ids(harness, "ada", "acct-ada", in: "drafts").isEmpty)
        #expect(harness.submissions.all.isEmpty)
    }

    @Test(
        "a refused draft is the draft step's SetError with its properties; a bad attachment is the upload's",
        arguments: StorageBackend.allCases)
    func refusedDraft(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let bad = SubmissionDraft(to: ["not an address"], subject: "x", body: "y")
        let failure = await #expect(throws: SendFailure.self) {
            try await harness.service.send(bad, as: JMAPServiceHarness.ada, client: client, requestID: "r")
        }
        guard case .refused(.draft, let error) = failure else {
            Issue.record("not a refused draft: \(String(describing: failure))")
            return
        }
        #expect(error.kind == .invalidProperties)
        #expect(error.properties == ["to"])

        var attached = SubmissionDraft(to: ["bob@mail.test"], subject: "x", body: "y")
        attached.attachments = [.init(filename: "a.txt", contentType: "text/plain", base64: "!!not base64!!")]
        let upload = await #expect(throws: SendFailure.self) {
            try await harness.service.send(attached, as: JMAPServiceHarness.ada, client: client, requestID: "r")
        }
        guard case .refused(.attachments, _) = upload else {
            Issue.record("not a refused upload: \(String(describing: upload))")
            return
        }
        #expect(try await ids(harness, "ada", "acct-ada", in: "drafts").isEmpty)
        #expect(try await harness.store.page(address: "bob@mail.test", page: 1).isEmpty)
    }

    @Test("what a dry run shows is what is sent: Blob/upload, the Email/set draft, its EmailSubmission/set")
    func calls() {
        var message = SubmissionDraft(to: ["bob@mail.test"], subject: "s", body: "b")
        message.attachments = [.init(filename: "a.txt", contentType: "text/plain", base64: "aGk=")]
        let calls = JMAPService.sendCalls(message, from: JMAPServiceHarness.ada)
        #expect(calls.map { $0.arrayValue?[0].stringValue } == ["Blob/upload", "Email/set", "EmailSubmission/set"])
        #expect(calls[1].arrayValue?[1]["create"]?["draft"]?["from"] == [["email": "ada@agents.test"]])
        #expect(calls[2].arrayValue?[1]["onSuccessUpdateEmail"] == nil)
    }
}
