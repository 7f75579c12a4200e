import IMAP
import MailStore
import Testing

@testable import IMAPServer

/// SORT's keys and order (RFC 5256): the base subject of §2.1 on the RFC's forms and imaptest's sort-subject
/// subjects, the first address's mailbox, and criteria applied in turn with REVERSE flipping only its own.
@Suite("IMAP server: SORT's keys and order")
struct IMAPSortTests {
    @Test(
        "The base subject: Re/Fw/Fwd leaders with blobs, (fwd) trailers, [fwd: ...] wrappers, a lone blob kept",
        arguments: [
            ("a", "a"),
            ("Re: a", "a"),
            ("RE:   re: a  ", "a"),
            ("[foo] Fwd: [bar] Re: fw: b (fWd)  (fwd)", "b"),
            ("b (a)", "b (a)"),
            ("Re: [FWD: c]", "c"),
            ("[xyz]", "[xyz]"),
            ("[xyz] a", "a"),
            (" ", ""),
            ("Re: re:", ""),
            ("Fwd : [list] real", "real"),
            ("Ready: now", "Ready: now"),
            ("[fwd: [fwd: d (fwd)]]", "d"),
        ])
    func baseSubject(_ subject: String, _ base: String) {
        #expect(IMAPSort.baseSubject(subject) == base)
    }

    @Test("The first address's mailbox, a group's name for a group, empty for none or an unreadable field")
    func firstMailbox() {
        #expect(IMAPSort.firstMailbox("Foo Bar <user2@domain2.org>, a@b") == "USER2")
        #expect(IMAPSort.firstMailbox("user2@domain2.org (foo bar)") == "USER2")
        #expect(IMAPSort.firstMailbox("user2: blah@domain1.org;") == "USER2")
        #expect(IMAPSort.firstMailbox(nil) == "")
        #expect(IMAPSort.firstMailbox("<unterminated") == "")
    }

    @Test("Criteria in turn, REVERSE on its own criterion only, ties in sequence order; the date falls back to arrival")
    func order() {
        func entry(_ uid: UInt32, size: Int64, at: Int64) -> MailUIDEntry {
            MailUIDEntry(uid: uid, id: "m\(uid)", keywords: [], size: size, receivedAt: at)
        }
        let raws: [[UInt8]?] = [
            Array("Date: Fri, 22 Feb 2008 02:00:00 +0200\r\nSubject: Re: b\r\n\r\nx".utf8),
            Array("Subject: a\r\n\r\nxx".utf8),
            Array("Date: Fri, 22 Feb 2008 00:00:00 +0000\r\nSubject: b\r\n\r\nxx".utf8),
            nil,
        ]
        let entries = [entry(1, size: 10, at: 300), entry(2, size: 20, at: 100), entry(3, size: 20, at: 200),
                       entry(4, size: 5, at: 1_203_638_400)]
        let keys = zip(entries, raws).map { IMAPSort.keys($0, raw: $1) }
        typealias C = IMAPSortCommand.Criterion
        #expect(IMAPSort.order(keys, by: [C(.arrival)]) == [1, 2, 0, 3])
        #expect(IMAPSort.order(keys, by: [C(.size)]) == [3, 0, 1, 2])
        #expect(IMAPSort.order(keys, by: [C(.size, reverse: true)]) == [1, 2, 0, 3], "the tie keeps sequence order")
        #expect(IMAPSort.order(keys, by: [C(.size, reverse: true), C(.arrival, reverse: true)]) == [2, 1, 0, 3])
        // Dates: 1 is 2008-02-22 00:00 UTC, 3 the same instant; 2 has none (arrival 100); 4's bytes are gone
        // (arrival 1203638400, 2008-02-22 00:00 UTC too).
        #expect(IMAPSort.order(keys, by: [C(.date)]) == [1, 0, 2, 3])
        #expect(IMAPSort.order(keys, by: [C(.subject)]) == [3, 1, 0, 2], "none, a, then Re: b and b tied")
    }
}
