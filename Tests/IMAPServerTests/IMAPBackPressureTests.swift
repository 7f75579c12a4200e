import IMAP
import Logging
import PosternTestSupport
import SocketServer
import Testing

@testable import IMAPServer

/// A client that pipelines commands with large answers and reads none of them holds one answer in the server, not
/// one per command (review 7: fifty unread `FETCH 1:* BODY.PEEK[]` grew the server by 250 MiB, two connections over
/// a 16 MB mailbox crashed it). The test plays the event loop (``MailTLSLoop``, without TLS) and the driver.
@Suite("IMAP server: answers wait for the client to read")
struct IMAPBackPressureTests {
    typealias Loop = MailTLSLoop<IMAPRequest>

    /// A signed-in connection with INBOX selected.
    static func selected() throws -> Loop {
        var loop = try Loop(plainPeer: "127.0.0.1")
        _ = loop.writtenText()
        loop.receive("a1 LOGIN ann secret\r\n")
        loop.complete(.authenticated(.succeeded(user: "ann")))
        loop.receive("a2 SELECT INBOX\r\n")
        loop.complete(.completed(IMAPCommandResult([.exists(3)], status: IMAPStatusResponse(.ok, "SELECT completed"))))
        _ = loop.writtenText()
        loop.jobs = []
        return loop
    }

    /// A FETCH response carrying `bytes` bytes of message text.
    static func message(_ number: UInt32, bytes: Int) -> IMAPUntaggedResponse {
        .fetch(number, [.body(IMAPSection(), origin: nil, Array(repeating: UInt8(ascii: "x"), count: bytes))])
    }

    static let big = 4 * ConnectionLifecycle.outputHighWater

    @Test("fifty pipelined FETCHes: the next runs only once the client has read the last answer down to the mark")
    func pipelinedFetchesWaitForTheReader() throws {
        var loop = try Self.selected()
        let fetches = (1...50).map { "f\($0) FETCH 1:* BODY.PEEK[]\r\n" }.joined()
        loop.receive(fetches)
        #expect(loop.jobs.count == 1)
        loop.complete(.completed(IMAPCommandResult([Self.message(1, bytes: Self.big)], status: IMAPStatusResponse(.ok, "FETCH completed"))))
        // The answer is unread: no second command runs, however long the client waits.
        #expect(loop.jobs.count == 1)
        loop.write(upTo: Self.big / 2)
        #expect(loop.jobs.count == 1)
        // Read down under the mark: the next command runs.
        _ = loop.written()
        #expect(loop.jobs.count == 2)
        if case .run(let command, _)? = loop.jobs.last { #expect(command.tag == "f2") } else { Issue.record("no FETCH") }
    }

    @Test("an answer in parts: the next part is asked for once the last is read down to the mark, the tag at the end")
    func partsWaitForTheReader() throws {
        var loop = try Self.selected()
        loop.receive("f1 FETCH 1:* BODY.PEEK[]\r\n")
        loop.complete(.completed(.part([Self.message(1, bytes: Self.big)])))
        #expect(loop.jobs.count == 1)
        loop.write(upTo: Self.big / 2)
        #expect(loop.jobs.count == 1)
        var text = String(decoding: loop.written(), as: UTF8.self)
        #expect(loop.jobs.last == .continueCommand)
        #expect(!text.contains("f1 OK"))
        loop.complete(.completed(.part([Self.message(2, bytes: 10)])))
        #expect(loop.jobs.count == 3 && loop.jobs.last == .continueCommand)  // a small part: the next at once
        loop.complete(.completed(IMAPCommandResult([Self.message(3, bytes: 10)], status: IMAPStatusResponse(.ok, "FETCH completed"))))
        text = loop.writtenText()
        #expect(text.hasPrefix("* 2 FETCH") && text.contains("* 3 FETCH") && text.hasSuffix("f1 OK FETCH completed\r\n"))
        // The session reads commands again.
        loop.receive("n1 NOOP\r\n")
        #expect(loop.jobs.count == 4)
    }
}

extension MailTLSLoop where Request == IMAPRequest {
    /// An IMAP connection from `peer` on a listener without TLS.
    init(plainPeer peer: String) throws {
        try self.init(
            make: { store in
                let service = IMAPService(
                    configuration: IMAPServerConfiguration(port: 0), store: store, signIn: RefusingSignIn(),
                    logger: Logger(label: "imap-back-pressure-tests"), draining: { false })
                return service.makeMachine(peer: peer, refusing: false, now: Self.now)
            },
            request: { ($0 as! IMAPJob).request })
    }

    /// The driver answers the job out.
    mutating func complete(_ outcome: IMAPListener.Outcome) {
        send(.completed(IMAPCompletion(outcome)))
    }
}

extension MailTLSLoop {
    /// The socket takes `limit` bytes of the output, no more.
    mutating func write(upTo limit: Int) {
        let count = machine.withUnsentOutput { min($0.count, limit) } ?? 0
        send(.wrote(count))
    }
}
