import MailDoor
import Testing

/// POP3's line framer: lines cut at LF with a CR before it dropped, a line past the limit (its CR counted) read to its
/// end and refused, and the same events whether the bytes come whole or one at a time.
@Suite("Line framer: lines, their limit, whole or byte by byte")
struct LineFramerTests {
    /// Every event `framer` finds in `text`, fed whole or one byte at a time.
    static func events(_ text: String, maxLineBytes: Int = 8, byteByByte: Bool) -> [LineFramer.Event] {
        var framer = LineFramer(maxLineBytes: maxLineBytes)
        let bytes = Array(text.utf8)
        let pieces = byteByByte ? bytes.map { [$0] } : [bytes]
        var events: [LineFramer.Event] = []
        for piece in pieces {
            var index = 0
            while let event = framer.next(piece, from: &index) { events.append(event) }
            #expect(index == piece.count)
        }
        return events
    }

    static func line(_ text: String) -> LineFramer.Event { .line(Array(text.utf8)) }

    @Test(
        "CRLF and bare LF end a line; an empty line is a line; a line without its end waits", arguments: [false, true])
    func lines(byteByByte: Bool) {
        #expect(
            Self.events("USER ann\r\nSTAT\n\r\nQU", maxLineBytes: 16, byteByByte: byteByByte) == [
                Self.line("USER ann"), Self.line("STAT"), Self.line(""),
            ])
    }

    @Test(
        "the limit counts the CR: 8 bytes with their CR fit, 9 do not; the next line is read", arguments: [false, true])
    func limit(byteByByte: Bool) {
        #expect(
            Self.events("1234567\r\n12345678\r\n123456789\nNOOP\r\n", byteByByte: byteByByte) == [
                Self.line("1234567"), .tooLong, .tooLong, Self.line("NOOP"),
            ])
    }

    @Test("a line far past the limit keeps nothing and ends at its LF", arguments: [false, true])
    func farPastTheLimit(byteByByte: Bool) {
        let long = String(repeating: "x", count: 10_000)
        #expect(Self.events(long + "\r\nQUIT\r\n", byteByByte: byteByByte) == [.tooLong, Self.line("QUIT")])
    }

    @Test("reset forgets the line partly read, over the limit or not")
    func reset() {
        var framer = LineFramer(maxLineBytes: 8)
        var index = 0
        #expect(framer.next(Array("123456789".utf8), from: &index) == nil)
        framer.reset()
        index = 0
        #expect(framer.next(Array("AB\r\n".utf8), from: &index) == Self.line("AB"))
    }
}

/// The input a session holds: bytes wait while the session works, up to the bound before it asks for no more, and go
/// with the line partly read when dropped.
@Suite("Session input: waiting bytes, their bound, a drop")
struct SessionInputTests {
    @Test("bytes wait until read; past the bound the input is full; what is read no longer counts")
    func bound() {
        var input = SessionInput(framer: LineFramer(maxLineBytes: 64), maxWaitingBytes: 10)
        #expect(!input.hasWaitingBytes)
        input.append(Array("NOOP\r\n".utf8))
        #expect(input.hasWaitingBytes && !input.isFull)
        input.append(Array("STAT\r\n".utf8))
        #expect(input.isFull)
        #expect(input.next() == .line(Array("NOOP".utf8)))
        #expect(!input.isFull && input.hasWaitingBytes)
        #expect(input.next() == .line(Array("STAT".utf8)))
        #expect(!input.hasWaitingBytes)
        #expect(input.next() == nil)
    }

    @Test("a drop forgets the waiting bytes and the line partly read")
    func drop() {
        var input = SessionInput(framer: LineFramer(maxLineBytes: 64), maxWaitingBytes: 100)
        input.append(Array("STLS\r\nUSER a".utf8))
        #expect(input.next() == .line(Array("STLS".utf8)))
        #expect(input.next() == nil)  // "USER a" is held by the framer
        input.drop()
        input.append(Array("nn\r\n".utf8))
        #expect(input.next() == .line(Array("nn".utf8)))
    }
}
