import Base64Coding
import Directory
import Glibc
import Logging
import MailDelivery
import MailStore
import MailSubmission
import OutboundQueue
import PosternTestSupport
import SMTPOutcomes
import SMTPServer
import SMTPSubmission
import SocketServer
import Storage
import Synchronization
import Testing

/// Accounts held in memory on `agents.test`: ada (an agent, who sends), mia (a Mail.td account, read-only) and bob.
struct SubmissionDirectory: AccountDirectory {
    static let quotas = [
        "ada@agents.test": Int64(1_000_000), "mia@agents.test": 1_000_000, "bob@agents.test": 1_000_000,
    ]

    func serves(domain: String) -> Bool { domain.lowercased() == "agents.test" }

    func resolve(_ address: String) async throws -> AddressResolution {
        let key = address.lowercased()
        guard key.hasSuffix("@agents.test") else { return .foreign }
        return Self.quotas[key].map { .local(Recipient(address: key, quota: $0)) } ?? .unknown
    }
}

/// The sign-in port as the one owner of mail credentials answers it for two mailboxes: ada's key `ada-key` (she sends),
/// mia's password `mia-pw` (a Mail.td account: read-only); a token is refused for its scope.
struct TwoMailboxes: SubmissionSignIn {
    func signIn(username: String, password: String, client: String) async throws -> SubmissionSignInOutcome {
        switch (username, password) {
        case ("ada@agents.test", "ada-key"):
            .signedIn(
                SubmissionMailbox(
                    address: username, quota: 1_000_000, accountID: "ada-account", sends: true, standing: { true }))
        case ("mia@agents.test", "mia-pw"):
            .signedIn(
                SubmissionMailbox(
                    address: username, quota: 1_000_000, accountID: "mia-account", sends: false, standing: { true }))
        default: .refused
        }
    }

    func signIn(username: String?, accessToken: String, client: String) async throws -> SubmissionSignInOutcome {
        .tokenRefused(.insufficientScope)
    }
}

/// A submission listener on loopback over each storage backend: the SMTP server with ``SubmissionSink``, the one ``Submitter`` over
/// the outbound queue as its ledger, the store and local delivery; a blocking client that speaks one command at a
/// time.
@Suite("Submission listener over loopback, on each backend", .serialized, .timeLimit(.minutes(2)))
struct SubmissionServerTests {
    static let now: Int64 = 1_795_600_000

    /// The submissions a sink told of.
    final class Told: Sendable {
        let list = Mutex<[Submitted]>([])
    }

    final class Served: Sendable {
        let test: TestDatabase
        let store: MailStore
        let queue: OutboundQueue
        let group: EventLoopGroup
        let server: SMTPServer
        let port: Int
        /// What the sink told of each accepted submission.
        let submitted = Told()

        init(_ backend: StorageBackend, sendsOutside: Bool = true) throws {
            test = try backend.makeDatabase()
            store = MailStore(database: test.database)
            queue = OutboundQueue(database: test.database)
            let admission = OutboundAdmission(
                ledger: queue, sendsOutside: sendsOutside, limits: [], sender: { _ in .allowed(holder: nil) })
            let submitter = Submitter(
                admission: admission,
                delivery: LocalDelivery(
                    directory: SubmissionDirectory(), store: store, clock: { SubmissionServerTests.now }))
            group = try EventLoopGroup(count: 1, pollInterval: .milliseconds(20))
            group.startOnce()
            var settings = SMTPServerConfiguration(host: "127.0.0.1", port: 0, hostname: "submit.test")
            settings.requiresAuthentication = true
            settings.submission = true
            let logger = Logger(label: "test.submission")
            let told = submitted
            server = SMTPServer(
                configuration: settings,
                sink: SubmissionSink(
                    signIn: TwoMailboxes(), submitter: submitter, clock: { SubmissionServerTests.now }, logger: logger,
                    onSubmission: { one in told.list.withLock { $0.append(one) } }),
                group: group, logger: logger)
            port = try server.start()
        }

        func stop() async {
            await server.shutdown()
            await group.shutdownJoining()
        }
    }

    /// Sends each of `commands` and reads its whole reply (the last line of a multi-line one); returns the replies'
    /// last lines, the greeting first.
    static func talk(_ port: Int, _ commands: [String]) async throws -> [String] {
        try await blocking {
            let fd = try LoopbackSocket.connect(port: port, timeout: 10)
            defer { Glibc.close(fd) }
            var buffer: [UInt8] = []
            func reply() throws -> String {
                while true {
                    let text = String(decoding: buffer, as: UTF8.self)
                    let lines = text.components(separatedBy: "\r\n")
                    if let last = lines.dropLast().first(where: { $0.count >= 4 && $0.dropFirst(3).first == " " }) {
                        let consumed = text.range(of: last + "\r\n")!.upperBound
                        buffer = Array(text[consumed...].utf8)
                        return last
                    }
                    guard try LoopbackSocket.receive(fd, into: &buffer) else { return "closed" }
                }
            }
            var replies = [try reply()]
            for command in commands {
                try LoopbackSocket.sendAll(fd, Array((command + "\r\n").utf8))
                replies.append(try reply())
            }
            return replies
        }
    }

    /// `\0user\0password`, base64.
    static func plain(_ user: String, _ password: String) -> String {
        Base64.encode(Array("\u{0}\(user)\u{0}\(password)".utf8))
    }

    static func message(from: String, subject: String) -> String {
        "From: \(from)\r\nTo: bob@agents.test, carol@far.example\r\nSubject: \(subject)\r\nMessage-ID: <\(subject)@x>\r\n\r\n"
            + "Hello from submission.\r\n."
    }

    @Test(
        "An agent's message: bob has it at once, carol is queued, ada's Sent has the copy the submission names",
        arguments: StorageBackend.allCases)
    func sends(_ backend: StorageBackend) async throws {
        let served = try Served(backend)
        let replies = try await Self.talk(
            served.port,
            [
                "EHLO client.test", "AUTH PLAIN \(Self.plain("ada@agents.test", "ada-key"))",
                "MAIL FROM:<ada@agents.test> RET=HDRS", "RCPT TO:<bob@agents.test> NOTIFY=FAILURE",
                "RCPT TO:<carol@far.example>", "DATA", Self.message(from: "Ada <ada@agents.test>", subject: "first"),
                "QUIT",
            ])
        await served.stop()
        #expect(replies[2] == "235 2.7.0 Authentication successful")
        let queued = try #require(replies.dropLast().last)
        #expect(queued.hasPrefix("250 2.0.0 OK queued as S"))
        let submissionID = String(queued.dropFirst("250 2.0.0 OK queued as ".count))
        let records = try await served.queue.submissions(accountID: "ada-account", ids: nil)
        let record = try #require(records.first)
        #expect(records.count == 1 && record.id == submissionID)
        #expect(record.sender == "ada@agents.test")
        let statuses = Dictionary(uniqueKeysWithValues: record.recipients.map { ($0.address, $0.status) })
        #expect(statuses["carol@far.example"] == .queued)
        if case .delivered? = statuses["bob@agents.test"] {
        } else {
            Issue.record("bob: \(String(describing: statuses))")
        }
        let bob = try await served.store.list(.everything(of: "bob@agents.test"))
        #expect(bob.map(\.subject) == ["first"])
        let sent = try await served.store.list(MailSelection(.address("ada@agents.test"), .inFolder(.sent)))
        #expect(sent.map(\.id) == [record.emailID])
        #expect(sent.first?.isRead == true)
        let told = served.submitted.list.withLock { $0 }
        #expect(told.map(\.record.id) == [submissionID])
        #expect(told.map(\.delivered) == [1] && told.map(\.queued) == [1])
    }

    @Test(
        "Refusals: a From that is not the mailbox 550 5.7.1 (nothing kept), a Mail.td account at MAIL FROM, an unknown local recipient, a read-only token",
        arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let served = try Served(backend)
        let replies = try await Self.talk(
            served.port,
            [
                "EHLO client.test", "AUTH PLAIN \(Self.plain("ada@agents.test", "ada-key"))",
                "MAIL FROM:<ada@agents.test>", "RCPT TO:<nobody@agents.test>", "RCPT TO:<bob@agents.test>", "DATA",
                Self.message(from: "eve@agents.test", subject: "forged"), "MAIL FROM:<bob@agents.test>",
            ])
        #expect(replies[4] == "550 5.1.1 Mailbox unavailable: no such user here")
        #expect(replies[7] == "550 5.7.1 The From of the email must be ada@agents.test.")
        #expect(replies[8] == "553 5.7.1 This session sends as ada@agents.test only: MAIL FROM must be that address.")
        let mia = try await Self.talk(
            served.port,
            [
                "EHLO client.test", "AUTH PLAIN \(Self.plain("mia@agents.test", "mia-pw"))",
                "MAIL FROM:<mia@agents.test>",
                "AUTH XOAUTH2 \(Base64.encode(Array("user=ada@agents.test\u{1}auth=Bearer t\u{1}\u{1}".utf8)))",
            ])
        #expect(mia[2] == "235 2.7.0 Authentication successful")
        #expect(mia[3].hasPrefix("550 5.7.1 mia@agents.test is a Mail.td account"))
        #expect(mia[4] == "503 5.5.1 Error: already authenticated")
        let token = try await Self.talk(
            served.port,
            [
                "EHLO client.test",
                "AUTH XOAUTH2 \(Base64.encode(Array("user=ada@agents.test\u{1}auth=Bearer t\u{1}\u{1}".utf8)))",
                "",
            ])
        await served.stop()
        #expect(
            token[2] == "334 "
                + Base64.encode(Array(#"{"status":"insufficient_scope","scope":"mail.send"}"#.utf8)))
        #expect(token[3] == "535 5.7.8 Authentication credentials invalid")
        #expect(try await served.queue.submissions(accountID: "ada-account", ids: nil).isEmpty)
        #expect(try await served.store.list(.everything(of: "ada@agents.test")).isEmpty)
        #expect(try await served.store.list(.everything(of: "bob@agents.test")).isEmpty)
        #expect(served.submitted.list.withLock { $0.isEmpty })
    }

    @Test(
        "With outbound delivery off, carol stays in the outbox, recorded held, and the message is still accepted",
        arguments: StorageBackend.allCases)
    func outboxWhenOff(_ backend: StorageBackend) async throws {
        let served = try Served(backend, sendsOutside: false)
        let replies = try await Self.talk(
            served.port,
            [
                "EHLO client.test", "AUTH PLAIN \(Self.plain("ada@agents.test", "ada-key"))",
                "MAIL FROM:<ada@agents.test>", "RCPT TO:<carol@far.example>", "DATA",
                Self.message(from: "ada@agents.test", subject: "held"),
            ])
        await served.stop()
        #expect(replies.last?.hasPrefix("250 2.0.0 OK queued as S") == true)
        let record = try #require(try await served.queue.submissions(accountID: "ada-account", ids: nil).first)
        #expect(record.recipients.map(\.status) == [.held(.outboundOff)])
    }
}
