import Testing

@testable import IMAP

@Suite("IMAP command framer")
struct IMAPCommandFramerTests {
    /// Every event of `input`, fed whole or one byte at a time.
    static func events(_ input: [UInt8], limits: IMAPLimits = IMAPLimits(), byteByByte: Bool) -> [IMAPFramerEvent] {
        var framer = IMAPCommandFramer(limits: limits)
        var events: [IMAPFramerEvent] = []
        let chunks: [[UInt8]] = byteByByte ? input.map { [$0] } : [input]
        for chunk in chunks {
            var index = 0
            while let event = framer.next(chunk, from: &index) { events.append(event) }
            #expect(index == chunk.count)
        }
        return events
    }

    /// The events of `input`, checked to be the same whole and byte by byte.
    static func events(_ input: String, limits: IMAPLimits = IMAPLimits()) -> [IMAPFramerEvent] {
        let whole = events(Array(input.utf8), limits: limits, byteByByte: false)
        #expect(events(Array(input.utf8), limits: limits, byteByByte: true) == whole)
        return whole
    }

    static func command(_ text: String) -> IMAPFramerEvent { .command(Array(text.utf8)) }

    @Test("Lines end at CRLF or a bare LF, and several arrive in one read")
    func lines() {
        #expect(Self.events("a1 NOOP\r\na2 CAPABILITY\nb") == [Self.command("a1 NOOP"), Self.command("a2 CAPABILITY")])
    }

    @Test("A synchronizing literal asks for a continuation and stays inside its command, CRLF and all")
    func synchronizingLiteral() {
        let input = "A003 APPEND saved-messages (\\Seen) {10}\r\nab\r\ncd\r\nef\r\n"
        #expect(
            Self.events(input) == [
                .literalContinuation, Self.command("A003 APPEND saved-messages (\\Seen) {10}\r\nab\r\ncd\r\nef"),
            ])
    }

    @Test("A non-synchronizing literal (LITERAL+/-) follows without a continuation request")
    func nonSynchronizingLiteral() {
        #expect(
            Self.events("a LOGIN {3+}\r\nbob {6+}\r\nsecret\r\n")
                == [Self.command("a LOGIN {3+}\r\nbob {6+}\r\nsecret")])
    }

    @Test("A literal marker inside a quoted string is not a literal")
    func markerInQuotes() {
        #expect(Self.events("a LOGIN \"x{3}\" y\r\n") == [Self.command("a LOGIN \"x{3}\" y")])
    }

    @Test("A 100 kB line is read to its end, dropped, and refused under its tag; the next command is read")
    func longLine() {
        let input = "a7 SEARCH SUBJECT \"" + String(repeating: "x", count: 100_000) + "\"\r\na8 NOOP\r\n"
        #expect(Self.events(input) == [.refused(tag: "a7", .lineTooLong), Self.command("a8 NOOP")])
    }

    @Test("A synchronizing literal over the limit ends its command at once: no continuation, BAD [TOOBIG]")
    func synchronizingLiteralTooLarge() {
        var limits = IMAPLimits()
        limits.maxLiteralBytes = 100
        #expect(
            Self.events("a APPEND INBOX {101}\r\na2 NOOP\r\n", limits: limits)
                == [.refused(tag: "a", .literalTooLarge), Self.command("a2 NOOP")])
        #expect(IMAPCommandError.literalTooLarge.code == .tooBig)
    }

    @Test("A non-synchronizing literal over LITERAL-'s bound is read, dropped with its command, and refused")
    func nonSynchronizingLiteralTooLarge() {
        let literal = String(repeating: "z", count: 5000)
        #expect(
            Self.events("b APPEND INBOX {5000+}\r\n\(literal)\r\nb2 NOOP\r\n")
                == [.refused(tag: "b", .nonSynchronizingLiteralTooLarge), Self.command("b2 NOOP")])
    }

    @Test("A non-synchronizing literal beyond every limit is refused and the connection closed, nothing read")
    func nonSynchronizingLiteralBeyondEveryLimit() {
        #expect(
            Self.events("c APPEND INBOX {99999999999999+}\r\nxyz")
                == [.refusedAndClosed(tag: "c", .literalTooLarge)])
    }

    @Test("The literals of one command are limited together")
    func literalsTogether() {
        var limits = IMAPLimits()
        limits.maxLiteralBytes = 10
        #expect(
            Self.events("a LOGIN {6}\r\nabcdef {6}\r\n", limits: limits)
                == [.literalContinuation, .refused(tag: "a", .literalTooLarge)])
    }

    @Test("A line without a readable tag is refused untagged")
    func untaggedRefusal() {
        var limits = IMAPLimits()
        limits.maxLineBytes = 10
        #expect(Self.events("(((((((((((((((\r\n", limits: limits) == [.refused(tag: nil, .lineTooLong)])
    }

    @Test("In line mode a line is a line: a marker at its end is not a literal")
    func lineMode() {
        var framer = IMAPCommandFramer(limits: IMAPLimits())
        framer.readsLines = true
        let input = Array("dGVzdA=={5}\r\n".utf8)
        var index = 0
        #expect(framer.next(input, from: &index) == .line(Array("dGVzdA=={5}".utf8)))
    }

    @Test("Memory stays bounded: a refused command keeps nothing")
    func bounded() {
        var limits = IMAPLimits()
        limits.maxLineBytes = 1000
        var framer = IMAPCommandFramer(limits: limits)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
        for _ in 0..<256 {
            var index = 0
            #expect(framer.next(chunk, from: &index) == nil)
        }
        var index = 0
        #expect(framer.next(Array("\r\n".utf8), from: &index) == .refused(tag: nil, .lineTooLong))
    }
}
