import MIME
import JWT
import MailStore
import PosternTestSupport
import Synchronization
import Testing

@testable import MailboxAccounts

@Suite("Mailbox messages: Mail.td's list, detail, source, attachment, read marks and delete over the mail store",
    .timeLimit(.minutes(1)))
struct MailboxMessageEndpointTests {
    static func deliver(_ harness: MailboxHarness, to address: String, subject: String, now: Int64 = 1_750_000_000)
        async throws -> String
    {
        let message = NewMailMessage(
            envelopeFrom: "bounce@example.com", from: [MailAddress(name: "Ann Example", email: "ann@example.com")],
            to: [MailAddress(email: address)], subject: subject, messageID: "\(subject)@example.com",
            textBody: "Your code is 123456", htmlBody: "<p>Your code is <b>123456</b></p>", preview: "Your code is 123456",
            attachments: [
                MailAttachment(
                    filename: "code.txt", contentType: "text/plain", contentID: nil, disposition: "attachment",
                    data: Array("123456".utf8))
            ], raw: Array("Subject: \(subject)\r\n\r\nYour code is 123456\r\n".utf8))
        let store = harness.service.mail
        let quota = try #require(try await harness.service.store.account(address: address)).quota
        return try await store.deliver(message, to: [.init(address: address, quota: quota)], folder: .inbox, now: now)[0]
    }

    @Test(
        "a mailbox token lists, reads, downloads, marks read and deletes its own account's mail, by id or address",
        arguments: StorageBackend.allCases)
    func ownAccount(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let account = try await harness.createAccount("reader@mail.localhost")
        let first = try await Self.deliver(harness, to: "reader@mail.localhost", subject: "first", now: 1_750_000_000)
        let second = try await Self.deliver(harness, to: "reader@mail.localhost", subject: "second", now: 1_750_000_001)

        let list = await harness.send(.GET, "/api/accounts/reader@mail.localhost/messages", bearer: account.token)
        #expect(list.status == 200 && list["page"] == .int(1))
        let messages = try #require(list["messages"]?.arrayValue)
        #expect(messages.map { $0["id"]?.stringValue } == [second, first])
        #expect(messages[0]["sender"]?.stringValue == "ann@example.com")
        #expect(messages[0]["from"]?.stringValue == "Ann Example <ann@example.com>")
        #expect(messages[0]["preview_text"]?.stringValue == "Your code is 123456")
        #expect(messages[0]["is_read"] == .bool(false) && messages[0]["created_at"]?.stringValue == "2025-06-15T15:06:41Z")
        #expect(await harness.send(.GET, "/api/accounts/\(account.id)/messages?page=2", bearer: account.token)["messages"]?.arrayValue?.isEmpty == true)
        for bad in ["page=zero", "page=", "page=0"] {
            #expect(await harness.send(.GET, "/api/accounts/\(account.id)/messages?\(bad)", bearer: account.token).status == 400)
        }

        let detail = await harness.send(.GET, "/api/accounts/\(account.id)/messages/\(first)", bearer: account.token)
        #expect(detail.status == 200 && detail["subject"]?.stringValue == "first")
        #expect(detail["address"]?.stringValue == "reader@mail.localhost")
        #expect(detail["text_body"]?.stringValue == "Your code is 123456")
        let attachments = try #require(detail["attachments"]?.arrayValue)
        #expect(attachments.count == 1 && attachments[0]["index"] == .int(0) && attachments[0]["filename"]?.stringValue == "code.txt")

        let source = await harness.send(.GET, "/api/accounts/\(account.id)/messages/\(first)/source", bearer: account.token)
        #expect(source.status == 200 && source.headers["Content-Type"] == "message/rfc822")
        #expect(String(decoding: source.body, as: UTF8.self).hasPrefix("Subject: first"))
        let file = await harness.send(.GET, "/api/accounts/\(account.id)/messages/\(first)/attachments/0", bearer: account.token)
        #expect(file.status == 200 && file.body == Array("123456".utf8) && file.headers["Content-Type"] == "text/plain")
        #expect(await harness.send(.GET, "/api/accounts/\(account.id)/messages/\(first)/attachments/1", bearer: account.token).status == 404)

        #expect(await harness.send(.PUT, "/api/accounts/\(account.id)/messages/\(first)/read", bearer: account.token).status == 200)
        let batch = await harness.send(.PUT, "/api/accounts/\(account.id)/messages/read", json: #"{"all":true}"#, bearer: account.token)
        #expect(batch.status == 200 && batch["updated"] == .int(1))
        #expect(await harness.send(.PUT, "/api/accounts/\(account.id)/messages/read", json: #"{"ids":[1]}"#, bearer: account.token).status == 400)

        let info = await harness.send(.GET, "/api/accounts/\(account.id)", bearer: account.token)
        #expect(info["used"] != .int(0))
        #expect(await harness.send(.DELETE, "/api/accounts/\(account.id)/messages/\(first)", bearer: account.token).status == 204)
        #expect(await harness.send(.DELETE, "/api/accounts/\(account.id)/messages/\(first)", bearer: account.token).status == 404)
        #expect(await harness.send(.GET, "/api/accounts/\(account.id)/messages/\(first)", bearer: account.token).status == 404)
    }

    @Test(
        "another account's token is 403, no token 401; a Pro owner reads its accounts' mail, others' are 404",
        arguments: StorageBackend.allCases)
    func access(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let owner = try await harness.createAccount("owner-box@mail.localhost")
        let other = try await harness.createAccount("other-box@mail.localhost")
        let id = try await Self.deliver(harness, to: "owner-box@mail.localhost", subject: "private")
        #expect(await harness.send(.GET, "/api/accounts/\(owner.id)/messages/\(id)", bearer: other.token).status == 403)
        #expect(await harness.send(.GET, "/api/accounts/\(owner.id)/messages").status == 401)
        // The other account's own path does not reach the message either.
        #expect(await harness.send(.GET, "/api/accounts/\(other.id)/messages/\(id)", bearer: other.token).status == 404)

        let pro = try await harness.proToken(email: "reader-pro@example.com")
        let proBox = try await harness.createProAccount("pro-box@mail.localhost", bearer: pro)
        let proMessage = try await Self.deliver(harness, to: "pro-box@mail.localhost", subject: "for pro")
        let listed = await harness.send(.GET, "/api/user/accounts/\(proBox)/messages", bearer: pro)
        #expect(listed["messages"]?.arrayValue?.first?["id"]?.stringValue == proMessage)
        #expect(await harness.send(.GET, "/api/accounts/pro-box@mail.localhost/messages/\(proMessage)", bearer: pro).status == 200)
        #expect(await harness.send(.GET, "/api/user/accounts/\(owner.id)/messages", bearer: pro).status == 404)
    }
}

@Suite("Mailbox messages: waiting for mail", .timeLimit(.minutes(1)))
struct MailboxWaitTests {
    @Test(
        "a waiting request answers with mail delivered while it waits, at once with mail already there, 204 without",
        arguments: StorageBackend.allCases)
    func wait(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let changes = harness.service.mail.changes
        let account = try await harness.createAccount("waiter@mail.localhost")
        let started = ContinuousClock.now
        let nothing = await harness.send(.GET, "/api/accounts/\(account.id)/messages/wait?timeout=1", bearer: account.token)
        #expect(nothing.status == 204)
        #expect(ContinuousClock.now - started >= .seconds(1))

        // Delivered only once the waiter has looked, found nothing and parked on the change stream: the answer must
        // come from a later look, so an endpoint that did not wait (or did not look again when woken) fails here.
        let waited = Task {
            await harness.send(.GET, "/api/accounts/\(account.id)/messages/wait?timeout=10", bearer: account.token)
        }
        let waiting = ContinuousClock.now + .seconds(10)
        var parked = 0
        while parked == 0 && ContinuousClock.now < waiting {
            parked = changes.waiting(for: "waiter@mail.localhost")
            if parked == 0 { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(parked == 1, "the waiter never parked: it was not waiting")
        let id = try await MailboxMessageEndpointTests.deliver(harness, to: "waiter@mail.localhost", subject: "code")
        let arrived = await waited.value
        #expect(arrived.status == 200 && arrived["id"]?.stringValue == id)
        let again = await harness.send(.GET, "/api/accounts/\(account.id)/messages/wait?timeout=0", bearer: account.token)
        #expect(again.status == 200 && again["subject"]?.stringValue == "code")
        #expect(await harness.send(.PUT, "/api/accounts/\(account.id)/messages/\(id)/read", bearer: account.token).status == 200)
        #expect(await harness.send(.GET, "/api/accounts/\(account.id)/messages/wait?timeout=0", bearer: account.token).status == 204)
        #expect(await harness.send(.GET, "/api/accounts/\(account.id)/messages/wait?timeout=31", bearer: account.token).status == 400)
    }
}
