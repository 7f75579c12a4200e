import Foundation
import PosternTestSupport
import Storage
import Testing

/// `Email/set` + `EmailSubmission/set` between two agents of one server, and the recipients it refuses or keeps.
@Suite("JMAP submission")
struct JMAPSubmissionTests {
    @Test(
        "A sends to B: Email/set, EmailSubmission/set and the implicit Email/set; B reads it; A's Sent has it $sent",
        arguments: StorageBackend.allCases)
    func agentToAgent(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let b = try await harness.signUp("bobby")

        let responses = try await harness.send(
            from: a, to: [b.address], subject: "Hello Bob", text: "Hi there, Bob.",
            onSuccessUpdate: ["#s1": ["keywords/$draft": NSNull(), "keywords/$sent": true]])
        try #require(responses.count == 3, "\(responses.map { ($0.name, $0.arguments) })")
        #expect(responses.map(\.name) == ["Email/set", "EmailSubmission/set", "Email/set"])
        #expect(responses.map(\.callID) == ["c0", "c1", "c1"])

        let created = try #require(responses[0].object("created")?["d1"] as? [String: Any], "\(responses[0].arguments)")
        let emailID = try #require(created["id"] as? String)
        #expect(created["threadId"] is String)
        #expect(created["blobId"] is String)
        #expect((created["size"] as? Int ?? 0) > 0)

        let submission = try #require(
            responses[1].object("created")?["s1"] as? [String: Any], "\(responses[1].arguments)")
        #expect(submission["emailId"] as? String == emailID)
        #expect(submission["undoStatus"] as? String == "final")
        let status = try #require(submission["deliveryStatus"] as? [String: Any])
        let toB = try #require(status[b.address] as? [String: Any], "\(status)")
        #expect(toB["delivered"] as? String == "yes")
        #expect((toB["smtpReply"] as? String)?.hasPrefix("250") == true)

        let updated = try #require(responses[2].object("updated"), "\(responses[2].arguments)")
        #expect(Array(updated.keys) == [emailID])

        // B: query the inbox and fetch through a result reference.
        let read = try await harness.call(b, [
            ["Email/query", ["accountId": b.accountID, "filter": ["inMailbox": "inbox"]], "q"],
            ["Email/get",
             ["accountId": b.accountID, "#ids": ["resultOf": "q", "name": "Email/query", "path": "/ids"],
              "properties": ["subject", "from", "to", "bodyValues", "textBody", "mailboxIds", "keywords"],
              "fetchTextBodyValues": true],
             "g"],
        ])
        try #require(read.count == 2)
        #expect((read[0].arguments["ids"] as? [String])?.count == 1)
        #expect(read[1].name == "Email/get", "\(read[1].arguments)")
        let emails = try #require(read[1].arguments["list"] as? [[String: Any]])
        try #require(emails.count == 1)
        let email = emails[0]
        #expect(email["subject"] as? String == "Hello Bob")
        let from = try #require(email["from"] as? [[String: Any]])
        #expect(from.first?["email"] as? String == a.address)
        #expect(from.first?["name"] as? String == "alice")
        #expect(((email["to"] as? [[String: Any]])?.first?["email"] as? String) == b.address)
        #expect(Array((email["mailboxIds"] as? [String: Any] ?? [:]).keys) == ["inbox"])
        #expect((email["keywords"] as? [String: Any])?.isEmpty == true, "B's copy is unread, no $draft")
        let partID = try #require((email["textBody"] as? [[String: Any]])?.first?["partId"] as? String)
        let value = (email["bodyValues"] as? [String: Any])?[partID] as? [String: Any]
        let text = try #require(value?["value"] as? String, "\(email)")
        #expect(text == "Hi there, Bob.", "\(text)")

        // A: the message sits in Sent with $sent, without $draft.
        let sent = try await harness.ids(a, in: "sent")
        #expect(sent == [emailID])
        let mine = try await harness.emails(a, [emailID], properties: ["keywords", "mailboxIds"])
        let keywords = try #require(mine.first?["keywords"] as? [String: Any])
        #expect(keywords["$sent"] != nil, "\(keywords)")
        #expect(keywords["$draft"] == nil, "\(keywords)")
        #expect(keywords["$seen"] != nil, "\(keywords)")
        #expect(try await harness.ids(a, in: "inbox").isEmpty)
        #expect(try await harness.ids(a, in: "drafts").isEmpty)
    }

    @Test(
        "a Bcc recipient gets the message (RFC 8621 7.5: the envelope is To, Cc and Bcc) and is not shown to others",
        arguments: StorageBackend.allCases)
    func bccRecipientIsDelivered(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let b = try await harness.signUp("bobby")
        let c = try await harness.signUp("carol")

        let responses = try await harness.send(
            from: a, to: [c.address], subject: "Blind copy", text: "Bobby is in Bcc.",
            extraEmail: ["bcc": [["email": b.address]]])
        try #require(responses.count == 2)
        let submission = try #require(
            responses[1].object("created")?["s1"] as? [String: Any], "\(responses[1].arguments)")
        let status = try #require(submission["deliveryStatus"] as? [String: Any])
        #expect((status[c.address] as? [String: Any])?["delivered"] as? String == "yes")
        #expect((status[b.address] as? [String: Any])?["delivered"] as? String == "yes", "no status for Bcc: \(status)")
        #expect(try await harness.ids(b, in: "inbox").count == 1, "the Bcc recipient got nothing")

        let atC = try await harness.ids(c, in: "inbox")
        try #require(atC.count == 1)
        let blob = try #require(try await harness.emails(c, atC, properties: ["blobId"]).first?["blobId"] as? String)
        let raw = try await harness.single(
            c, "Blob/get", ["accountId": c.accountID, "ids": [blob], "properties": ["data:asText"]])
        let text = try #require((raw.arguments["list"] as? [[String: Any]])?.first?["data:asText"] as? String)
        #expect(!text.contains(b.address), "the To recipient's copy names the Bcc recipient")
    }

    @Test(
        "a foreign recipient is kept in the outbox: delivered \"no\", smtpReply names the outbox",
        arguments: StorageBackend.allCases)
    func foreignRecipientIsKept(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let b = try await harness.signUp("bobby")

        let responses = try await harness.send(
            from: a, to: ["x@example.org", b.address], subject: "Out and in", text: "Two recipients.")
        try #require(responses.count == 2)
        let submission = try #require(
            responses[1].object("created")?["s1"] as? [String: Any], "\(responses[1].arguments)")
        let status = try #require(submission["deliveryStatus"] as? [String: Any])
        let foreign = try #require(status["x@example.org"] as? [String: Any], "\(status)")
        #expect(foreign["delivered"] as? String == "no")
        #expect((foreign["smtpReply"] as? String)?.contains("outbox") == true, "\(foreign)")
        #expect((status[b.address] as? [String: Any])?["delivered"] as? String == "yes")

        let outbox = try await harness.database.read { connection in
            try connection.query("SELECT sender, recipients FROM mail_outbox").map {
                ($0.text("sender"), $0.text("recipients"))
            }
        }
        #expect(outbox.count == 1)
        #expect(outbox.first?.0 == a.address)
        #expect(outbox.first?.1?.contains("x@example.org") == true)
        #expect(try await harness.ids(b, in: "inbox").count == 1)
    }

    @Test(
        "an unknown agent of the agent domain is invalidRecipients and nothing is sent",
        arguments: StorageBackend.allCases)
    func unknownLocalRecipient(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let b = try await harness.signUp("bobby")
        let nobody = "nobody@\(harness.agentDomain)"

        let responses = try await harness.send(
            from: a, to: [b.address, nobody], subject: "To nobody", text: "Nobody reads this.")
        try #require(responses.count == 2)
        #expect(responses[1].object("created") == nil, "\(responses[1].arguments)")
        let refusal = try #require(
            responses[1].object("notCreated")?["s1"] as? [String: Any], "\(responses[1].arguments)")
        #expect(refusal["type"] as? String == "invalidRecipients")
        #expect(refusal["invalidRecipients"] as? [String] == [nobody])
        #expect(try await harness.ids(b, in: "inbox").isEmpty, "all or nothing: B got nothing")
    }

    @Test("a From that is not the account's address is forbiddenFrom", arguments: StorageBackend.allCases)
    func forbiddenFrom(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let b = try await harness.signUp("bobby")

        let responses = try await harness.send(
            from: a, to: [b.address], subject: "Spoofed", text: "I am Bob.", fromAddress: b.address)
        try #require(responses.count == 2)
        #expect(responses[0].object("created")?["d1"] != nil, "writing the message itself is allowed")
        let refusal = try #require(
            responses[1].object("notCreated")?["s1"] as? [String: Any], "\(responses[1].arguments)")
        #expect(refusal["type"] as? String == "forbiddenFrom")
        #expect(try await harness.ids(b, in: "inbox").isEmpty)
    }

    @Test(
        "a recipient's display name with a line break cannot add a recipient (header injection through Email/set)",
        arguments: StorageBackend.allCases)
    func displayNameCannotAddARecipient(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let b = try await harness.signUp("bobby")

        let responses = try await harness.send(
            from: a, to: [], subject: "Hello", text: "Hi.",
            extraEmail: ["to": [["name": "Friend\r\n, \(b.address), x", "email": "friend@example.com"]]])
        try #require(responses.count == 2)
        let submission = try #require(
            responses[1].object("created")?["s1"] as? [String: Any], "\(responses[1].arguments)")
        let status = try #require(submission["deliveryStatus"] as? [String: Any])
        #expect(Array(status.keys) == ["friend@example.com"], "\(status)")
        #expect(try await harness.ids(b, in: "inbox").isEmpty, "B was never a recipient")
        let sent = try await harness.emails(a, try await harness.ids(a, in: "sent"), properties: ["to"])
        let to = try #require(sent.first?["to"] as? [[String: Any]])
        #expect(to.count == 1 && to.first?["email"] as? String == "friend@example.com", "\(to)")
    }

    @Test(
        "a Sender that is not the account's address is forbiddenFrom; the account's own is fine",
        arguments: StorageBackend.allCases)
    func forbiddenSender(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let b = try await harness.signUp("bobby")

        let spoofed = try await harness.send(
            from: a, to: [b.address], subject: "On behalf", text: "Sent by Bob.",
            extraEmail: ["sender": [["name": "Bob", "email": b.address]]])
        try #require(spoofed.count == 2)
        #expect(spoofed[0].object("created")?["d1"] != nil, "writing the message itself is allowed")
        let refusal = try #require(
            spoofed[1].object("notCreated")?["s1"] as? [String: Any], "\(spoofed[1].arguments)")
        #expect(refusal["type"] as? String == "forbiddenFrom")
        #expect((refusal["description"] as? String)?.contains("Sender") == true, "\(refusal)")
        #expect(try await harness.ids(b, in: "inbox").isEmpty)

        let own = try await harness.send(
            from: a, to: [b.address], subject: "Mine", text: "Sent by me.",
            extraEmail: ["sender": [["email": a.address.uppercased()]]])
        #expect(own[1].object("created")?["s1"] != nil, "\(own[1].arguments)")
    }

    @Test(
        "a Reply-To naming another mailbox here is forbiddenFrom; the account's own or one elsewhere is fine",
        arguments: StorageBackend.allCases, [("bobby", false), ("nobody-yet", false), ("alice", true), ("helpdesk@example.com", true)])
    func replyTo(_ backend: StorageBackend, _ row: (String, Bool)) async throws {
        let (target, allowed) = row
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let a = try await harness.signUp("alice")
        let b = try await harness.signUp("bobby")
        let domain = String(a.address.split(separator: "@").last ?? "")
        let replyTo = target.contains("@") ? target : "\(target)@\(domain)"

        let responses = try await harness.send(
            from: a, to: [b.address], subject: "Reply elsewhere", text: "Hi.",
            extraEmail: ["replyTo": [["name": "Replies", "email": replyTo]]])
        try #require(responses.count == 2)
        if allowed {
            #expect(responses[1].object("created")?["s1"] != nil, "\(responses[1].arguments)")
            #expect(try await harness.ids(b, in: "inbox").count == 1)
        } else {
            let refusal = try #require(
                responses[1].object("notCreated")?["s1"] as? [String: Any], "\(responses[1].arguments)")
            #expect(refusal["type"] as? String == "forbiddenFrom")
            #expect((refusal["description"] as? String)?.contains("Reply-To") == true, "\(refusal)")
            #expect(try await harness.ids(b, in: "inbox").isEmpty)
        }
    }
}
