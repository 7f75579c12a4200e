import IMAP
import MailStore
import PosternTestSupport
import Synchronization
import Testing

@testable import IMAPServer

/// IDLE as one task of the connection (issue 82 item 4): the loop starts it and cancels it in the order the session
/// asked, an `IDLE` and its `DONE` in one read included, and a cancelled IDLE leaves no watch behind.
@Suite("IMAP server: IDLE is one task the connection cancels", .timeLimit(.minutes(1)))
struct IMAPIdleTests {
    @Test("IDLE and DONE in one read: the loop is asked to start the IDLE, then to end it, in that order")
    func pipelinedIdleAndDone() throws {
        var loop = try IMAPBackPressureTests.selected()
        loop.receive("i1 IDLE\r\nDONE\r\n")
        try #require(loop.jobs.count == 2, "\(loop.jobs)")
        if case .idleStarted = loop.jobs[0] {} else { Issue.record("the first job is \(loop.jobs[0])") }
        #expect(loop.jobs[1] == .idleEnded)
        #expect(loop.writtenText().hasSuffix("i1 OK IDLE terminated\r\n"))
    }

    @Test("an IDLE ended at once is cancelled whole; one left running tells of an arrival", arguments: StorageBackend.allCases)
    func endedAtOnce(_ backend: StorageBackend) async throws {
        let database = try backend.makeDatabase()
        let store = MailStore(database: database.database)
        _ = try await MailDoorHolder.deliver(store, ["one"])
        let driver = await IMAPRecentTests.session(store)
        _ = try await IMAPRecentTests.run(driver, .select(IMAPRecentTests.inbox))

        driver.startIdle(notify: { _ in }, end: { _ in })
        let first = try #require(driver.idleWatch.withLock { $0 })
        driver.endIdle()
        #expect(first.isCancelled)
        await first.value  // ends: nothing is left watching
        #expect(driver.idleWatch.withLock { $0 } == nil)

        let told = Mutex<[IMAPUntaggedResponse]>([])
        driver.startIdle(notify: { responses in told.withLock { $0 += responses } }, end: { _ in })
        _ = try await MailDoorHolder.deliver(store, ["two"])
        while !told.withLock({ $0.contains(.exists(2)) }) { try await Task.sleep(for: .milliseconds(20)) }
        let second = try #require(driver.idleWatch.withLock { $0 })
        driver.connectionClosed()
        driver.endIdle()
        await second.value
    }
}
