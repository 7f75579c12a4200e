import IMAP
import MailStore
import Testing

@testable import IMAPServer

/// The selected mailbox as a session knows it: sequence numbers, sets by number and by UID, and the responses a new
/// look at the store becomes (RFC 9051 §7.5.1's EXPUNGE numbering, EXISTS, FETCH FLAGS).
@Suite("IMAP server: the selected mailbox's view")
struct IMAPMailboxViewTests {
    static func entry(_ uid: UInt32, _ keywords: Set<String> = []) -> MailUIDEntry {
        MailUIDEntry(uid: uid, id: "m\(uid)", keywords: keywords, size: 10, receivedAt: 0)
    }

    static func view(_ uids: [UInt32]) -> IMAPMailboxView {
        IMAPMailboxView(
            folder: .inbox, readOnly: false, mailbox: MailUIDMailbox(uidValidity: 7, uidNext: (uids.last ?? 0) + 1),
            entries: uids.map { entry($0) })
    }

    @Test("sets by number and by UID, `*` and `n:*` past the last")
    func sets() throws {
        let view = Self.view([3, 5, 9, 12])
        let all = try IMAPSequenceSetParsing.parse("1:*")
        #expect(view.indexes(all, uid: false, saved: []) == [0, 1, 2, 3])
        #expect(view.indexes(try IMAPSequenceSetParsing.parse("5:9"), uid: true, saved: []) == [1, 2])
        #expect(view.indexes(try IMAPSequenceSetParsing.parse("13:*"), uid: true, saved: []) == [3], "n:* names the last")
        #expect(view.indexes(try IMAPSequenceSetParsing.parse("20"), uid: true, saved: []) == [])
        #expect(view.indexes(try IMAPSequenceSetParsing.parse("2,4:6"), uid: false, saved: []) == [1, 3])
        #expect(view.indexes(.savedResult, uid: false, saved: [9, 3]) == [0, 2])
        #expect(Self.view([]).indexes(all, uid: false, saved: []) == [], "1:* on an empty mailbox names nothing")
        #expect(view.sequenceNumber(ofUID: 9) == 3)
        #expect(view.sequenceNumber(ofUID: 4) == nil)
    }

    @Test("a new look: EXPUNGEs numbered as the client counts, then EXISTS, then FETCH FLAGS")
    func sync() {
        var view = Self.view([1, 2, 3, 4, 5])
        let responses = view.sync(
            to: (MailUIDMailbox(uidValidity: 7, uidNext: 8),
                [Self.entry(1), Self.entry(3, ["$seen"]), Self.entry(5), Self.entry(6), Self.entry(7)]))
        #expect(
            responses == [
                .expunge(2), .expunge(3), .exists(5),
                .fetch(2, [.uid(3), .flags([.seen])]),
            ])
        #expect(view.entries.map(\.uid) == [1, 3, 5, 6, 7])
        #expect(view.sync(to: (view.mailbox, view.entries)) == [], "nothing new: nothing to say")
        let shared = [Self.entry(1), Self.entry(3, ["$seen"]), Self.entry(5), Self.entry(6), Self.entry(7, ["$seen"])]
        _ = view.sync(to: (view.mailbox, shared))
        view.entries.withUnsafeBufferPointer { kept in
            shared.withUnsafeBufferPointer { #expect(kept.baseAddress == $0.baseAddress, "the snapshot's own array") }
        }
    }

    @Test("during a FETCH, STORE or SEARCH by number the EXPUNGEs wait, numbers unchanged, for a later look")
    func heldExpunges() {
        var view = Self.view([1, 2, 3])
        let snapshot = (MailUIDMailbox(uidValidity: 7, uidNext: 5), [Self.entry(1), Self.entry(3), Self.entry(4)])
        #expect(view.sync(to: snapshot, holdingExpunges: true) == [.exists(4)])
        #expect(view.sequenceNumber(ofUID: 3) == 3, "2 is still there for the client")
        #expect(view.holdsExpunges, "the next look must happen even if the store has not changed since")
        #expect(view.sync(to: snapshot, holdingExpunges: true) == [], "still held")
        #expect(view.holdsExpunges)
        #expect(view.sync(to: snapshot) == [.expunge(2)])
        #expect(view.sequenceNumber(ofUID: 3) == 2)
        #expect(!view.holdsExpunges, "told: a look at an unchanged store may be skipped")
    }

    @Test("FETCH reads bytes ahead at most 256 messages and 8 MiB at a time, always at least one")
    func readAhead() {
        let small = (1...300).map { MailUIDEntry(uid: UInt32($0), id: "m\($0)", keywords: [], size: 1000, receivedAt: 0) }
        #expect(IMAPConnectionDriver.readAhead(Array(0..<300)[0...], of: small).count == 256)
        #expect(IMAPConnectionDriver.readAhead(Array(0..<300)[290...], of: small) == (291...300).map { "m\($0)" })
        let large = (1...5).map { MailUIDEntry(uid: UInt32($0), id: "m\($0)", keywords: [], size: 3 << 20, receivedAt: 0) }
        #expect(IMAPConnectionDriver.readAhead(Array(0..<5)[0...], of: large) == ["m1", "m2"], "6 MiB, a third would pass 8")
        let huge = [MailUIDEntry(uid: 1, id: "big", keywords: [], size: 30 << 20, receivedAt: 0)]
        #expect(IMAPConnectionDriver.readAhead([0][0...], of: huge) == ["big"], "one past the bound is still read")
    }

    @Test("a keyword the client was not told of comes with a FLAGS response first")
    func newKeyword() {
        var view = Self.view([1])
        #expect(view.flagsUpdate() == nil, "system flags only: nothing new")
        let responses = view.sync(to: (view.mailbox, [Self.entry(1, ["$seen", "nonjunk"])]))
        #expect(responses.first == .flags(IMAPFlag.systemFlags + [.keyword("nonjunk")]))
        #expect(view.flagsUpdate(adding: ["nonjunk"]) == nil, "told once")
    }

    @Test("SENTBEFORE/ON/SINCE compare the day the sender wrote, its zone disregarded")
    func writtenDay() {
        #expect(IMAPSearch.writtenDay("Sat, 24 Mar 2007 23:00:00 -0300") == IMAPDate(year: 2007, month: 3, day: 24).daysSinceEpoch)
        #expect(IMAPSearch.writtenDay("25 mar 2007 01:00 +0300") == IMAPDate(year: 2007, month: 3, day: 25).daysSinceEpoch)
        #expect(IMAPSearch.writtenDay("yesterday") == nil)
    }
}

/// Sequence sets as a command writes them, through the parser of the IMAP target.
enum IMAPSequenceSetParsing {
    static func parse(_ text: String) throws -> IMAPSequenceSet {
        let command = try IMAPCommandParser.parse(Array("a FETCH \(text) FLAGS".utf8), limits: IMAPLimits())
        guard case .fetch(let set, _, _) = command.kind else { throw ParseFailure() }
        return set
    }

    struct ParseFailure: Error {}
}
