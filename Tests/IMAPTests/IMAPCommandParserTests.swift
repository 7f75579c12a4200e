import SASL
import Testing

@testable import IMAP

@Suite("IMAP command parser")
struct IMAPCommandParserTests {
    /// The command of `text` (one command, literals inline), framed byte by byte and parsed.
    static func parse(_ text: String, limits: IMAPLimits = IMAPLimits()) throws(IMAPCommandFailure) -> IMAPCommand {
        let events = IMAPCommandFramerTests.events(Array((text + "\r\n").utf8), limits: limits, byteByByte: true)
        guard case .command(let bytes)? = events.last else {
            throw IMAPCommandFailure(tag: nil, error: .emptyCommand)
        }
        return try IMAPCommandParser.parse(bytes, limits: limits)
    }

    static func kind(_ text: String) throws -> IMAPCommandKind { try parse(text).kind }

    static func error(_ text: String, limits: IMAPLimits = IMAPLimits()) -> IMAPCommandFailure? {
        do {
            _ = try parse(text, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test("RFC 3501 §8's sample session parses as written")
    func sampleSession() throws {
        #expect(
            try Self.parse("a001 login mrc secret")
                == IMAPCommand(tag: "a001", kind: .login(username: "mrc", password: "secret")))
        #expect(try Self.kind("a002 select inbox") == .select(IMAPMailboxName("INBOX")))
        #expect(
            try Self.kind("a003 fetch 12 full")
                == .fetch(.ranges([IMAPSequenceRange(.number(12), .number(12))]), IMAPFetchAttribute.full, uid: false))
        #expect(
            try Self.kind("a004 fetch 12 body[header]")
                == .fetch(
                    .ranges([IMAPSequenceRange(.number(12), .number(12))]),
                    [.body(IMAPSection(text: .header), partial: nil, peek: false)], uid: false))
        #expect(
            try Self.kind("a005 store 12 +flags \\deleted")
                == .store(
                    .ranges([IMAPSequenceRange(.number(12), .number(12))]),
                    IMAPStoreAction(mode: .add, silent: false, flags: [.deleted]), uid: false))
        #expect(try Self.kind("a006 logout") == .logout)
    }

    @Test("Strings: atoms, quoted strings with escapes, literals, UTF-8")
    func strings() throws {
        #expect(
            try Self.kind("a LOGIN \"fred \\\"q\\\" \\\\\" {4}\r\npa s")
                == .login(username: "fred \"q\" \\", password: "pa s"))
        #expect(try Self.kind("a LOGIN \"jöhn\" x") == .login(username: "jöhn", password: "x"))
        #expect(Self.error("a LOGIN \"unterminated")?.error == .syntax("a closing quote"))
        #expect(Self.error("a LOGIN \"a\\b\" x")?.error == .syntax("\\\" or \\\\ after a backslash"))
        #expect(try Self.kind("a LOGIN {2}\r\n\u{FF} y") == .login(username: "\u{FF}", password: "y"))
        let notUTF8 = Array("a LOGIN {1}\r\n".utf8) + [0xFF] + Array(" y".utf8)
        #expect(throws: IMAPCommandFailure(tag: "a", error: .invalidUTF8)) {
            try IMAPCommandParser.parse(notUTF8, limits: IMAPLimits())
        }
    }

    @Test("Tags: any ASTRING-CHAR but +; a bad or missing one gives an untagged failure")
    func tags() throws {
        #expect(try Self.parse("A.b-1] NOOP").tag == "A.b-1]")
        #expect(Self.error("+a NOOP") == IMAPCommandFailure(tag: nil, error: .invalidTag))
        #expect(Self.error("* NOOP") == IMAPCommandFailure(tag: nil, error: .invalidTag))
        #expect(Self.error("a") == IMAPCommandFailure(tag: "a", error: .syntax("a space")))
        #expect(Self.error("a BOGUS") == IMAPCommandFailure(tag: "a", error: .unknownCommand))
        #expect(Self.error("a NOOP extra") == IMAPCommandFailure(tag: "a", error: .syntax("the end of the command")))
    }

    @Test("Sequence sets: ranges, *, $, either order; zero and overlong sets refused")
    func sequenceSets() throws {
        let kind = try Self.kind("a UID FETCH 2,4:6,*,9:* UID")
        let expected: IMAPSequenceSet = .ranges([
            IMAPSequenceRange(.number(2), .number(2)), IMAPSequenceRange(.number(4), .number(6)),
            IMAPSequenceRange(.last, .last), IMAPSequenceRange(.number(9), .last),
        ])
        #expect(kind == .fetch(expected, [.uid], uid: true))
        #expect(expected.text == "2,4:6,*,9:*")
        #expect(IMAPSequenceRange(.number(7), .number(3)).bounds(last: 10) == 3...7)
        #expect(IMAPSequenceRange(.number(4), .last).bounds(last: 2) == 2...4)
        #expect(try Self.kind("a FETCH $ FLAGS") == .fetch(.savedResult, [.flags], uid: false))
        #expect(Self.error("a FETCH 0 FLAGS")?.error == .syntax("a non-zero number"))
        #expect(Self.error("a FETCH 4294967296 FLAGS")?.error == .syntax("a 32-bit number"))
        var limits = IMAPLimits()
        limits.maxSequenceSetRanges = 3
        #expect(Self.error("a FETCH 1,2,3,4 FLAGS", limits: limits)?.error == .sequenceSetTooLarge)
        #expect(IMAPSequenceSet.ranges(of: [5, 1, 3, 4, 9]).text == "1,3:5,9")
        // FETCH 1:* on an empty mailbox names nothing; UID 100:* with 50 the highest UID names 50.
        let all: IMAPSequenceSet = .ranges([IMAPSequenceRange(.number(1), .last)])
        #expect(all.ranges(last: 0) == [])
        #expect(all.ranges(last: 7) == [1...7])
        #expect(IMAPSequenceSet.ranges([IMAPSequenceRange(.number(100), .last)]).ranges(last: 50) == [50...100])
        #expect(IMAPSequenceSet.savedResult.ranges(last: 9) == nil)
    }

    @Test("FETCH: macros, sections, partials, PEEK, BINARY, RFC822 items")
    func fetch() throws {
        #expect(
            try Self.kind("a FETCH 1 ALL")
                == .fetch(.ranges([IMAPSequenceRange(.number(1), .number(1))]), IMAPFetchAttribute.all, uid: false))
        #expect(
            try Self.kind("a FETCH 1 fast")
                == .fetch(.ranges([IMAPSequenceRange(.number(1), .number(1))]), IMAPFetchAttribute.fast, uid: false))
        let kind = try Self.kind(
            "a FETCH 1:* (FLAGS BODY.PEEK[HEADER.FIELDS (DATE FROM)] BODY[1.2.MIME] BODY[]<0.2048> BODY[3]"
                + " BINARY.PEEK[1]<10.5> BINARY.SIZE[2] RFC822.SIZE RFC822.HEADER RFC822 BODYSTRUCTURE BODY ENVELOPE"
                + " INTERNALDATE UID BODY[HEADER.FIELDS.NOT (X-Y)] BODY[4.TEXT])")
        guard case .fetch(_, let attributes, false) = kind else {
            Issue.record("not a FETCH")
            return
        }
        #expect(
            attributes == [
                .flags,
                .body(IMAPSection(text: .headerFields(["DATE", "FROM"])), partial: nil, peek: true),
                .body(IMAPSection(part: [1, 2], text: .mime), partial: nil, peek: false),
                .body(IMAPSection(), partial: IMAPPartial(start: 0, length: 2048), peek: false),
                .body(IMAPSection(part: [3]), partial: nil, peek: false),
                .binary(part: [1], partial: IMAPPartial(start: 10, length: 5), peek: true),
                .binarySize(part: [2]),
                .rfc822Size, .rfc822Header, .rfc822,
                .bodyStructure(extensible: true), .bodyStructure(extensible: false), .envelope, .internalDate, .uid,
                .body(IMAPSection(text: .headerFieldsNot(["X-Y"])), partial: nil, peek: false),
                .body(IMAPSection(part: [4], text: .text), partial: nil, peek: false),
            ])
        #expect(Self.error("a FETCH 1 BODY[MIME]")?.error == .syntax("a section: HEADER, HEADER.FIELDS, TEXT or MIME"))
        #expect(Self.error("a FETCH 1 BODY[]<0.0>")?.error == .syntax("a non-zero length"))
        #expect(Self.error("a FETCH 1 (FLAGS")?.error == .syntax(")"))
        #expect(Self.error("a FETCH 1 COLOUR")?.error == .syntax("a FETCH data item"))
    }

    @Test("STORE: replace, add, remove, .SILENT, lists and bare flags; \\Recent refused")
    func store() throws {
        let one: IMAPSequenceSet = .ranges([IMAPSequenceRange(.number(2), .number(4))])
        #expect(
            try Self.kind("A003 STORE 2:4 +FLAGS (\\Deleted)")
                == .store(one, IMAPStoreAction(mode: .add, silent: false, flags: [.deleted]), uid: false))
        #expect(
            try Self.kind("a UID STORE 2:4 -FLAGS.SILENT (\\Seen $Junk)")
                == .store(
                    one, IMAPStoreAction(mode: .remove, silent: true, flags: [.seen, .keyword("$Junk")]), uid: true))
        #expect(
            try Self.kind("a STORE 2:4 FLAGS ()")
                == .store(one, IMAPStoreAction(mode: .replace, silent: false, flags: []), uid: false))
        #expect(
            try Self.kind("a STORE 2:4 FLAGS \\Flagged \\X-Custom")
                == .store(
                    one, IMAPStoreAction(mode: .replace, silent: false, flags: [.flagged, .extension("X-Custom")]),
                    uid: false))
        #expect(Self.error("a STORE 1 +FLAGS (\\Recent)")?.error == .syntax("a flag other than \\Recent"))
    }

    @Test("SORT: RFC 5256's examples, REVERSE per criterion, UID SORT, ESORT's RETURN, SORT=DISPLAY's keys; a missing charset or an unknown key refused")
    func sort() throws {
        #expect(
            try Self.kind("A282 SORT (SUBJECT) UTF-8 SINCE 1-Feb-1994")
                == .sort(
                    IMAPSortCommand(
                        criteria: [.init(.subject)], charset: "UTF-8",
                        key: .internalDate(.since, IMAPDate(year: 1994, month: 2, day: 1))), uid: false))
        #expect(
            try Self.kind("A285 UID SORT (REVERSE DATE ARRIVAL reverse size) US-ASCII FROM \"a\" UNSEEN")
                == .sort(
                    IMAPSortCommand(
                        criteria: [.init(.date, reverse: true), .init(.arrival), .init(.size, reverse: true)],
                        charset: "US-ASCII", key: .and([.address(field: "FROM", contains: "a"), .flag(.seen, set: false)])),
                    uid: true))
        #expect(
            try Self.kind("a SORT RETURN (MIN ALL) (REVERSE DISPLAYFROM DISPLAYTO) UTF-8 ALL")
                == .sort(
                    IMAPSortCommand(
                        returnOptions: [.min, .all], criteria: [.init(.displayFrom, reverse: true), .init(.displayTo)],
                        charset: "UTF-8", key: .all), uid: false))
        #expect(
            try Self.kind("a SORT RETURN () (ARRIVAL) UTF-8 ALL")
                == .sort(IMAPSortCommand(returnOptions: [], criteria: [.init(.arrival)], charset: "UTF-8", key: .all), uid: false))
        #expect(Self.error("a SORT (SUBJECT) ALL") != nil, "the charset is required")
        #expect(
            Self.error("a SORT (THREAD) UTF-8 ALL")?.error
                == .syntax("ARRIVAL, CC, DATE, FROM, SIZE, SUBJECT, TO, DISPLAYFROM or DISPLAYTO"))
        #expect(Self.error("a SORT () UTF-8 ALL") != nil, "at least one criterion")
    }

    @Test("THREAD: ORDEREDSUBJECT with a charset and keys, UID THREAD; REFERENCES and a missing charset refused")
    func thread() throws {
        #expect(
            try Self.kind("A283 THREAD ORDEREDSUBJECT UTF-8 SINCE 5-MAR-2000")
                == .thread(
                    IMAPThreadCommand(
                        algorithm: .orderedSubject, charset: "UTF-8",
                        key: .internalDate(.since, IMAPDate(year: 2000, month: 3, day: 5))), uid: false))
        #expect(
            try Self.kind("a UID THREAD orderedsubject US-ASCII UNSEEN ALL")
                == .thread(
                    IMAPThreadCommand(
                        algorithm: .orderedSubject, charset: "US-ASCII", key: .and([.flag(.seen, set: false), .all])),
                    uid: true))
        #expect(Self.error("a THREAD REFERENCES UTF-8 ALL")?.error == .syntax("ORDEREDSUBJECT"))
        #expect(Self.error("a THREAD ORDEREDSUBJECT ALL") != nil, "the charset is required")
    }

    @Test("SEARCH: the RFC's examples, OR, NOT, parentheses, CHARSET, RETURN, dates, sizes")
    func search() throws {
        #expect(
            try Self.kind("A282 SEARCH FLAGGED SINCE 1-Feb-1994 NOT FROM \"Smith\"")
                == .search(
                    IMAPSearchCommand(
                        key: .and([
                            .flag(.flagged, set: true), .internalDate(.since, IMAPDate(year: 1994, month: 2, day: 1)),
                            .not(.address(field: "FROM", contains: "Smith")),
                        ])), uid: false))
        #expect(
            try Self.kind("A283 SEARCH TEXT \"string not in mailbox\"")
                == .search(IMAPSearchCommand(key: .text("string not in mailbox")), uid: false))
        #expect(
            try Self.kind("A284 SEARCH CHARSET UTF-8 TEXT {6}\r\nXXXXXX")
                == .search(IMAPSearchCommand(charset: "UTF-8", key: .text("XXXXXX")), uid: false))
        #expect(
            try Self.kind("A285 UID SEARCH RETURN (MIN COUNT SAVE) OR (SEEN LARGER 100) NOT (SMALLER 5) 1:10")
                == .search(
                    IMAPSearchCommand(
                        returnOptions: [.min, .count, .save],
                        key: .and([
                            .or(.and([.flag(.seen, set: true), .larger(100)]), .not(.smaller(5))),
                            .sequence(.ranges([IMAPSequenceRange(.number(1), .number(10))])),
                        ])), uid: true))
        #expect(
            try Self.kind("a SEARCH RETURN () HEADER Message-ID <x@y> SENTBEFORE \"31-Dec-2024\" UID 5:* KEYWORD $Work")
                == .search(
                    IMAPSearchCommand(
                        returnOptions: [],
                        key: .and([
                            .header(field: "MESSAGE-ID", contains: "<x@y>"),
                            .sentDate(.before, IMAPDate(year: 2024, month: 12, day: 31)),
                            .uid(.ranges([IMAPSequenceRange(.number(5), .last)])), .flag(.keyword("$Work"), set: true),
                        ])), uid: false))
        #expect(Self.error("a SEARCH SINCE 30-Feb-2024")?.error == .syntax("a day of the month"))
        #expect(Self.error("a SEARCH OR SEEN")?.error == .syntax("a space"))
        #expect(Self.error("a SEARCH ((SEEN)")?.error == .syntax(")"))
        #expect(Self.error("a SEARCH WHATEVER")?.error == .syntax("a search key"))
    }

    @Test("Nesting past the limit is refused, by parentheses and by NOT chains alike")
    func nesting() {
        var limits = IMAPLimits()
        limits.maxNestingDepth = 4
        #expect(Self.error("a SEARCH ((((SEEN))))", limits: limits) == nil)
        #expect(Self.error("a SEARCH (((((SEEN)))))", limits: limits)?.error == .nestingTooDeep)
        #expect(Self.error("a SEARCH NOT NOT NOT NOT SEEN", limits: limits) == nil)
        #expect(Self.error("a SEARCH NOT NOT NOT NOT NOT SEEN", limits: limits)?.error == .nestingTooDeep)
        let deep = "a SEARCH " + String(repeating: "(", count: 10_000) + "ALL" + String(repeating: ")", count: 10_000)
        #expect(Self.error(deep)?.error == .nestingTooDeep)
    }

    @Test("LIST: the basic form, RFC 5258's extended form, SPECIAL-USE and RETURN (STATUS ...)")
    func list() throws {
        #expect(try Self.kind("A101 LIST \"\" \"\"") == .list(IMAPListCommand(reference: "", patterns: [""])))
        #expect(
            try Self.kind("A102 LIST #news.comp.mail.misc %")
                == .list(IMAPListCommand(reference: "#news.comp.mail.misc", patterns: ["%"])))
        #expect(
            try Self.kind(
                "A103 LIST (SPECIAL-USE) \"\" (INBOX \"Sent*\") RETURN (CHILDREN STATUS (MESSAGES UNSEEN SIZE))")
                == .list(
                    IMAPListCommand(
                        selectionOptions: ["SPECIAL-USE"], reference: "", patterns: ["INBOX", "Sent*"],
                        returnOptions: [.children, .status([.messages, .unseen, .size])])))
        #expect(
            try Self.kind("A104 LIST \"\" * RETURN (SPECIAL-USE)")
                == .list(IMAPListCommand(reference: "", patterns: ["*"], returnOptions: [.specialUse])))
        #expect(try Self.kind("a LSUB \"\" *") == .lsub(reference: "", pattern: "*"))
        #expect(
            Self.error("a LIST \"\" * RETURN (COLOUR)")?.error == .syntax("SUBSCRIBED, CHILDREN, SPECIAL-USE or STATUS")
        )
    }

    @Test("STATUS with SIZE and DELETED; an unknown item refused")
    func status() throws {
        #expect(
            try Self.kind("A042 STATUS blurdybloop (UIDNEXT MESSAGES SIZE DELETED)")
                == .status(IMAPMailboxName("blurdybloop"), [.uidNext, .messages, .size, .deleted]))
        #expect(
            Self.error("a STATUS INBOX (COLOUR)")?.error
                == .syntax("MESSAGES, UIDNEXT, UIDVALIDITY, UNSEEN, DELETED, SIZE or RECENT"))
        #expect(Self.error("a STATUS INBOX ()")?.error == .syntax("a STATUS item"))
    }

    @Test("APPEND: flags, date-time and the literal (RFC 3501 §6.3.11's example), literal8, and errors")
    func append() throws {
        let message =
            "Date: Mon, 7 Feb 1994 21:52:25 -0800 (PST)\r\nFrom: Fred Foobar <foobar@Blurdybloop.example>\r\n\r\n"
            + "Hello Joe\r\n"
        let kind = try Self.kind(
            "A003 APPEND saved-messages (\\Seen) \" 7-Feb-1994 21:52:25 -0800\" {\(message.utf8.count)}\r\n\(message)")
        let date = IMAPDateTime(seconds: 760_686_745, zoneMinutes: -480)
        #expect(
            kind == .append(IMAPMailboxName("saved-messages"), flags: [.seen], date: date, message: Array(message.utf8))
        )
        #expect(date.text == "\" 7-Feb-1994 21:52:25 -0800\"")
        #expect(
            try Self.kind("a APPEND Sent ~{3}\r\na\0b")
                == .append(IMAPMailboxName("Sent"), flags: [], date: nil, message: [97, 0, 98]))
        #expect(Self.error("a APPEND INBOX \"x\"")?.error == .syntax("a date such as 1-Feb-1994"))
        #expect(
            Self.error("a APPEND INBOX \" 7-Feb-1994 21:52:25 0800\" {1}\r\nx")?.error
                == .syntax("a zone such as -0700"))
        #expect(Self.error("a APPEND INBOX (\\Seen)")?.error == .syntax("a space"))
        #expect(Self.error("a APPEND INBOX flags")?.error == .syntax("the message as a literal"))
    }

    @Test("AUTHENTICATE with and without SASL-IR, = for an empty response, bad base64 refused")
    func authenticate() throws {
        #expect(try Self.kind("a AUTHENTICATE plain") == .authenticate(mechanism: "PLAIN", initialResponse: nil))
        #expect(
            try Self.kind("a AUTHENTICATE PLAIN AGZyZWQAc2VjcmV0")
                == .authenticate(mechanism: "PLAIN", initialResponse: SASLMessage(base64: "AGZyZWQAc2VjcmV0")))
        #expect(
            try Self.kind("a AUTHENTICATE EXTERNAL =")
                == .authenticate(mechanism: "EXTERNAL", initialResponse: SASLMessage(base64: "")))
        #expect(Self.error("a AUTHENTICATE PLAIN a*b=")?.error == .syntax("a base64 initial response"))
        #expect(Self.error("a AUTHENTICATE PLAIN abc")?.error == .syntax("a base64 initial response"))
    }

    @Test("The rest of the command list")
    func others() throws {
        let set: IMAPSequenceSet = .ranges([IMAPSequenceRange(.number(2), .number(4))])
        #expect(try Self.kind("a CAPABILITY") == .capability)
        #expect(try Self.kind("a noop") == .noop)
        #expect(try Self.kind("a STARTTLS") == .startTLS)
        #expect(try Self.kind("a ENABLE IMAP4rev2 CONDSTORE") == .enable(["IMAP4REV2", "CONDSTORE"]))
        #expect(try Self.kind("a EXAMINE blurdybloop") == .examine(IMAPMailboxName("blurdybloop")))
        #expect(try Self.kind("a CREATE owatagusiam/") == .create(IMAPMailboxName("owatagusiam/"), use: []))
        #expect(try Self.kind("a DELETE \"foo bar\"") == .delete(IMAPMailboxName("foo bar")))
        #expect(
            try Self.kind("a RENAME blurdybloop sarasoop")
                == .rename(IMAPMailboxName("blurdybloop"), to: IMAPMailboxName("sarasoop")))
        #expect(
            try Self.kind("a SUBSCRIBE #news.comp.mail.mime") == .subscribe(IMAPMailboxName("#news.comp.mail.mime")))
        #expect(try Self.kind("a UNSUBSCRIBE x") == .unsubscribe(IMAPMailboxName("x")))
        #expect(try Self.kind("a NAMESPACE") == .namespace)
        #expect(try Self.kind("a IDLE") == .idle)
        #expect(try Self.kind("a CHECK") == .check)
        #expect(try Self.kind("a CLOSE") == .close)
        #expect(try Self.kind("a UNSELECT") == .unselect)
        #expect(try Self.kind("a EXPUNGE") == .expunge)
        #expect(try Self.kind("a UID EXPUNGE 2:4") == .uidExpunge(set))
        #expect(try Self.kind("a COPY 2:4 MEETING") == .copy(set, IMAPMailboxName("MEETING"), uid: false))
        #expect(try Self.kind("a UID MOVE 2:4 Trash") == .move(set, IMAPMailboxName("Trash"), uid: true))
        #expect(Self.error("a UID NOOP")?.error == .syntax("COPY, MOVE, FETCH, SEARCH, SORT, THREAD, STORE or EXPUNGE"))
        #expect(Self.error("a ENABLE")?.error == .syntax("a capability"))
        #expect(try Self.kind("a SELECT iNbOx") == .select(IMAPMailboxName("INBOX")))
    }
}
