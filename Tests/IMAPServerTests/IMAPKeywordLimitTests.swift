import IMAP
import MailStore
import PosternTestSupport
import Testing

@testable import IMAPServer

/// Keywords are capped by the store (issue 81 item 12: 25,000 keywords on one message of a free account): a STORE or
/// an APPEND past a cap is `NO [LIMIT]` (RFC 5530) and changes nothing. Run through the connection driver, the store
/// on each backend.
@Suite("IMAP server: STORE and APPEND past the keyword caps are NO [LIMIT]", .timeLimit(.minutes(3)))
struct IMAPKeywordLimitTests {
    /// ``MailKeywordLimits``' documented defaults: 64 keywords on a message, each at most 50 bytes.
    static let perMessage = 64
    static let keywordBytes = 50

    static func keywords(_ count: Int, prefix: String = "k") -> [IMAPFlag] {
        (0..<count).map { .keyword("\(prefix)\($0)") }
    }

    /// `STORE 1 <mode>FLAGS (flags)`.
    static func store(_ tag: String, _ mode: IMAPStoreAction.Mode, _ flags: [IMAPFlag]) -> IMAPCommand {
        let action = IMAPStoreAction(mode: mode, silent: false, flags: flags)
        return IMAPCommand(tag: tag, kind: .store(.ranges(of: [1]), action, uid: false))
    }

    /// The message's flags as a FETCH in a new session sees them.
    static func flags(_ store: MailStore) async throws -> [IMAPFlag] {
        let driver = await IMAPRecentTests.session(store)
        _ = try await IMAPRecentTests.run(driver, .select(IMAPRecentTests.inbox))
        for response in try await IMAPRecentTests.run(driver, .fetch(.ranges(of: [1]), [.flags], uid: false)) {
            if case .fetch(_, let items) = response {
                for case .flags(let flags) in items { return flags.filter { $0 != .recent } }
            }
        }
        return []
    }

    @Test("STORE: one keyword past the count, or one byte past the length, is NO [LIMIT]; at the caps it is OK",
        arguments: StorageBackend.allCases)
    func store(_ backend: StorageBackend) async throws {
        let database = try backend.makeDatabase()
        let store = MailStore(database: database.database)
        _ = try await MailDoorHolder.deliver(store, ["one"])
        let driver = await IMAPRecentTests.session(store)
        _ = try await IMAPRecentTests.run(driver, .select(IMAPRecentTests.inbox))

        let tooMany = Self.keywords(Self.perMessage + 1)
        let many = await driver.run(Self.store("s1", .add, tooMany))
        #expect(many.status.kind == .no && many.status.code == .limit, "\(many.status)")
        #expect(try await Self.flags(store).isEmpty, "nothing was stored")

        let long = [IMAPFlag.keyword(String(repeating: "x", count: Self.keywordBytes + 1))]
        let tooLong = await driver.run(Self.store("s2", .add, long))
        #expect(tooLong.status.kind == .no && tooLong.status.code == .limit, "\(tooLong.status)")

        let atCaps = Self.keywords(Self.perMessage - 1)
            + [.keyword(String(repeating: "y", count: Self.keywordBytes)), .seen, .flagged]
        #expect(await driver.run(Self.store("s3", .replace, atCaps)).status.kind == .ok)
        #expect(try await Self.flags(store).count == atCaps.count)
    }

    @Test("APPEND with a keyword past the caps is NO [LIMIT] and stores nothing", arguments: StorageBackend.allCases)
    func append(_ backend: StorageBackend) async throws {
        let database = try backend.makeDatabase()
        let store = MailStore(database: database.database)
        let driver = await IMAPRecentTests.session(store)
        let raw = Array("From: a@example.com\r\nSubject: flagged\r\n\r\nbody\r\n".utf8)
        let flags = Self.keywords(Self.perMessage + 1)
        let appended = await driver.run(
            IMAPCommand(tag: "a1", kind: .append(IMAPRecentTests.inbox, flags: flags, date: nil, message: raw)))
        #expect(appended.status.kind == .no && appended.status.code == .limit, "\(appended.status)")
        #expect(try await store.page(address: MailDoorHolder.address, page: 1).isEmpty)
    }
}
