import IMAP
import Logging
import MailStore
import PosternTestSupport
import SocketServer
import Synchronization
import Testing

@testable import IMAPServer

/// IMAP's short commands run to completion on the connection's loop (issue 84, item 2): on SQLite a `FETCH`,
/// `SEARCH` or `STATUS` whose data is one read is answered from the loop thread's own connection, the same answer
/// the driver's task gives; on PostgreSQL, and for anything longer, the task answers. A loop answers a bounded
/// number a turn, so a burst on one connection does not keep its other connections waiting.
@Suite("IMAP server: short commands answered on the loop", .timeLimit(.minutes(2)))
struct IMAPShortWorkTests {
    static func command(_ line: String) throws -> IMAPCommand {
        try IMAPCommandParser.parse(Array(line.utf8), limits: IMAPLimits())
    }

    /// A signed-in driver on `store` with INBOX selected, counting into `loopAnswers`.
    static func selected(_ store: MailStore, loopAnswers: IMAPLoopAnswers = IMAPLoopAnswers()) async throws
        -> IMAPConnectionDriver
    {
        let driver = IMAPConnectionDriver(
            store: store, snapshots: IMAPSnapshotCache(capacity: 1000), envelopes: IMAPEnvelopeCache(capacity: 1000),
            signIn: OneHolderSignIn(), client: "127.0.0.1", now: { 1_800_000_000 },
            logger: Logger(label: "imap-short-work-tests"), loopAnswers: loopAnswers)
        _ = await driver.login(username: MailDoorHolder.address, password: MailDoorHolder.password)
        _ = try await IMAPRecentTests.run(driver, .select(IMAPRecentTests.inbox))
        _ = try await IMAPRecentTests.run(driver, .noop)
        return driver
    }

    static let shortCommands = [
        "a UID FETCH 2 (BODY.PEEK[])", "b FETCH 1:* (UID FLAGS RFC822.SIZE INTERNALDATE)", "c FETCH 1:3 (ENVELOPE)",
        "d UID SEARCH UNSEEN", "e SEARCH ALL", "f SEARCH RETURN (MIN MAX COUNT) NOT DELETED",
        "g STATUS INBOX (MESSAGES UNSEEN UIDNEXT UIDVALIDITY RECENT SIZE)", "h STATUS Nowhere (MESSAGES)",
    ]

    @Test("FETCH, SEARCH and STATUS on a current view: answered on the calling thread as the task answers them, on SQLite only", arguments: StorageBackend.allCases)
    func sameAnswerAsTheTask(_ backend: StorageBackend) async throws {
        let database = try backend.makeDatabase()
        let store = MailStore(database: database.database)
        _ = try await MailDoorHolder.deliver(store, ["one", "two", "three"])
        let answers = IMAPLoopAnswers()
        let driver = try await Self.selected(store, loopAnswers: answers)
        for line in Self.shortCommands {
            let command = try Self.command(line)
            #expect(driver.mayAnswerNow(command) == (backend == .sqlite), "\(line)")
            let now = driver.answerNow(command)
            let task = await driver.run(command)
            if backend == .sqlite {
                #expect(now == task, "\(line)")
            } else {
                #expect(now == nil, "\(line)")
            }
        }
        #expect(answers.count.load(ordering: .relaxed) == (backend == .sqlite ? Self.shortCommands.count : 0))
    }

    @Test("the loop leaves to the task what writes, reads more than once, or finds the view behind the store")
    func longWorkGoesToTheTask() async throws {
        let database = try StorageBackend.sqlite.makeDatabase()
        let store = MailStore(database: database.database)
        _ = try await MailDoorHolder.deliver(store, ["one", "two"])
        let driver = try await Self.selected(store)
        for line in [
            "a FETCH 1 (BODY[])",  // sets \Seen
            "b SEARCH BODY one",  // the store's text search
            "c SEARCH HEADER Subject one",  // each message's header read
            "d SEARCH RETURN (SAVE) ALL",  // changes $
            "e SELECT INBOX", "f NOOP", "g STORE 1 +FLAGS (\\Flagged)",
        ] {
            #expect(driver.answerNow(try Self.command(line)) == nil, "\(line)")
        }
        // A message arrived since the client last looked: its EXISTS comes first, from the task that refreshes.
        _ = try await MailDoorHolder.deliver(store, ["three"])
        let fetch = try Self.command("h UID FETCH 1 (FLAGS)")
        #expect(driver.answerNow(fetch) == nil)
        #expect(await driver.run(fetch).responses.contains(.exists(3)))
        #expect(driver.answerNow(fetch) != nil)  // and once told, the loop answers again
    }

    /// Answers in the order a loop made them, and what each came to.
    final class AnswerLog: Sendable {
        let entries = Mutex<[(name: String, onLoop: Bool, result: IMAPCommandResult?)]>([])
        let done = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let expected: Int

        init(expected: Int) {
            self.expected = expected
        }

        func record(_ name: String, onLoop: Bool, _ value: any AnyObject & Sendable) {
            var result: IMAPCommandResult?
            if let completion = value as? IMAPCompletion, case .completed(let answer) = completion.outcome {
                result = answer
            }
            let count = entries.withLock { entries in
                entries.append((name, onLoop, result))
                return entries.count
            }
            if count == expected { done.withLock { $0.take() }?.resume() }
        }

        var names: [String] { entries.withLock { $0.map(\.name) } }
    }

    /// `command` run `times` (at least once) times on `driver` through `service`, one after the other as a connection's pipelined
    /// commands are: each performed once the last was answered, on the loop.
    static func chain(
        _ service: IMAPService, _ loop: EventLoop, _ driver: IMAPConnectionDriver, _ command: IMAPCommand,
        name: String, times: Int, _ log: AnswerLog
    ) {
        service.perform(IMAPJob(.run(command, selection: nil), driver: driver), on: loop) { value in
            let onLoop = loop.inLoop
            log.record(name, onLoop: onLoop, value)
            if times > 1 {
                let next: @Sendable () -> Void = { chain(service, loop, driver, command, name: name, times: times - 1, log) }
                if onLoop { next() } else { loop.execute(next) }
            }
        }
    }

    @Test("a pipelined burst of 40 short FETCHes, 4 a turn: another connection's FETCH on the loop is answered within the next turn")
    func burstSharesTheLoop() async throws {
        let database = try StorageBackend.sqlite.makeDatabase()
        let store = MailStore(database: database.database)
        _ = try await MailDoorHolder.deliver(store, ["one", "two"])
        var configuration = IMAPServerConfiguration()
        configuration.shortCommandsPerTurn = 4
        let service = IMAPService(
            configuration: configuration, store: store, signIn: OneHolderSignIn(),
            logger: Logger(label: "imap-short-work-tests"), draining: { false })
        let answers = service.listener.loopAnswers
        let burst = try await Self.selected(store, loopAnswers: answers)
        let other = try await Self.selected(store, loopAnswers: answers)
        let group = try EventLoopGroup(count: 1)
        group.startOnce()
        let loop = group.loops[0]
        let fetch = try Self.command("f UID FETCH 1:2 (UID FLAGS)")
        let count = 40
        let log = AnswerLog(expected: count + 1)
        await withCheckedContinuation { continuation in
            log.done.withLock { $0 = continuation }
            loop.execute {
                // The burst's first command and the other's arrive in one turn, the burst first.
                Self.chain(service, loop, burst, fetch, name: "burst", times: count, log)
                Self.chain(service, loop, other, fetch, name: "other", times: 1, log)
            }
        }
        let names = log.names
        let position = try #require(names.firstIndex(of: "other"))
        // Without a share per turn the burst, each command answered as the last one's answer went out, would run to
        // its end in the first turn: the other's FETCH would come 41st. With 4 a turn it comes in the second turn.
        #expect(position <= 2 * configuration.shortCommandsPerTurn + 1, "\(names)")
        let entries = log.entries.withLock { $0 }
        #expect(entries.allSatisfy { $0.onLoop && $0.result?.status.kind == .ok && $0.result?.responses.count == 2 })
        #expect(answers.count.load(ordering: .relaxed) == count + 1)
        await group.shutdownJoining()
    }

    @Test("a FETCH past one part and a SEARCH of the text go to the driver's task: the loop answers neither itself")
    func longCommandsLeaveTheLoop() async throws {
        let database = try StorageBackend.sqlite.makeDatabase()
        let store = MailStore(database: database.database)
        let body = String(repeating: "a long line of text in a long message\r\n", count: 16_000)  // about 620 KB
        for subject in ["one", "two"] {
            let raw = Array("From: a@example.com\r\nSubject: \(subject)\r\n\r\n\(body)".utf8)
            _ = try await store.deliver(
                NewMailMessage(envelopeFrom: "a@example.com", subject: subject, textBody: body, raw: raw),
                to: [.init(address: MailDoorHolder.address, quota: 100_000_000)], folder: .inbox, now: 1_700_000_000)
        }
        let service = IMAPService(
            configuration: IMAPServerConfiguration(), store: store, signIn: OneHolderSignIn(),
            logger: Logger(label: "imap-short-work-tests"), draining: { false })
        let answers = service.listener.loopAnswers
        let driver = try await Self.selected(store, loopAnswers: answers)
        let group = try EventLoopGroup(count: 1)
        group.startOnce()
        let loop = group.loops[0]
        for line in ["a FETCH 1:2 (BODY.PEEK[])", "b SEARCH BODY long"] {
            let command = try Self.command(line)
            #expect(driver.mayAnswerNow(command), "\(line)")  // of a short kind, but not short here
            let log = AnswerLog(expected: 1)
            await withCheckedContinuation { continuation in
                log.done.withLock { $0 = continuation }
                loop.execute { Self.chain(service, loop, driver, command, name: line, times: 1, log) }
            }
            let entry = try #require(log.entries.withLock { $0.first })
            #expect(!entry.onLoop, "\(line)")
            #expect(entry.result != nil, "\(line)")
        }
        #expect(answers.count.load(ordering: .relaxed) == 0)
        await group.shutdownJoining()
    }
}
