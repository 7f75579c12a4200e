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

    @Test("SORT=DISPLAY's key: the display name decoded, else the address, a group's name, else the field as written")
    func display() {
        #expect(IMAPSort.display("foo bar <a@b.c>") == "FOO BAR")
        #expect(IMAPSort.display("=?iso-8859-1?q?foo_aar?= <e@f.g>") == "FOO AAR")
        #expect(IMAPSort.display("b@c.d") == "B@C.D")
        #expect(IMAPSort.display("b@c.d (Bee)") == "BEE")
        #expect(IMAPSort.display("team: a@b;") == "TEAM")
        #expect(IMAPSort.display(" d ") == "D")
        #expect(IMAPSort.display(nil) == "")
    }

    @Test("ESORT's ESEARCH: MIN and MAX the first and last in sort order, ALL in that order; ESEARCH's sorted by number")
    func esort() {
        let sorted = IMAPConnectionDriver.esearch([3, 1, 2, 5], [.min, .max, .all, .count], tag: "a", uid: false, sorted: true)
        #expect(sorted.min == 3 && sorted.max == 5 && sorted.count == 4)
        #expect(sorted.all?.text == "3,1:2,5")
        let searched = IMAPConnectionDriver.esearch([3, 1, 2, 5], [.min, .max, .all], tag: "a", uid: false, sorted: false)
        #expect(searched.min == 1 && searched.max == 5 && searched.all?.text == "1:3,5")
        #expect(IMAPConnectionDriver.esearch([], [], tag: "a", uid: true, sorted: true).all == nil, "nothing: no ALL")
    }

    @Test("ORDEREDSUBJECT: one thread per base subject, replies in date order under the first, threads by first date")
    func orderedSubject() {
        func keys(_ subject: String, date: Int64) -> IMAPSort.Keys {
            IMAPSort.Keys(
                arrival: 0, size: 0, date: date, subject: IMAPSort.baseSubject(subject).uppercased(), from: "", to: "",
                cc: "")
        }
        let all = [keys("b", date: 50), keys("a", date: 10), keys("Re: b", date: 40), keys("Fwd: a", date: 5),
                   keys("re: B", date: 60), keys("c", date: 10)]
        let threads = IMAPSort.orderedSubjectThreads(all) { UInt32($0 + 1) }
        #expect(threads == [
            IMAPThreadNode(4, children: [IMAPThreadNode(2)]),
            IMAPThreadNode(6),
            IMAPThreadNode(3, children: [IMAPThreadNode(1), IMAPThreadNode(5)]),
        ])
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
