import SMTPClient
import Testing

/// Feeds `text` whole and one byte at a time; both must agree.
private func parse(_ text: String, limits: SMTPReplyLimits = SMTPReplyLimits()) throws -> [SMTPClientReply] {
    var whole = SMTPReplyParser(limits: limits)
    let wholeReplies = try whole.feed(Array(text.utf8))
    var single = SMTPReplyParser(limits: limits)
    var singleReplies: [SMTPClientReply] = []
    for byte in text.utf8 { singleReplies += try single.feed(CollectionOfOne(byte)) }
    #expect(wholeReplies == singleReplies)
    return wholeReplies
}

@Suite("SMTPReplyParser: RFC 5321 §4.2 replies, fed whole and byte by byte")
struct SMTPReplyParserTests {
    @Test("a single-line reply: code, enhanced status code and text")
    func singleLine() throws {
        let replies = try parse("250 2.1.5 Ok, recipient accepted\r\n")
        #expect(replies == [SMTPClientReply(code: 250, enhancedStatus: "2.1.5", lines: ["Ok, recipient accepted"])])
        #expect(replies.first?.description == "250 2.1.5 Ok, recipient accepted")
    }

    @Test("a multi-line EHLO reply is one reply with a line per extension")
    func multiLine() throws {
        let replies = try parse("250-mx.test\r\n250-PIPELINING\r\n250-SIZE 1000\r\n250 STARTTLS\r\n")
        #expect(replies.count == 1)
        #expect(replies.first?.code == 250)
        #expect(replies.first?.lines == ["mx.test", "PIPELINING", "SIZE 1000", "STARTTLS"])
        #expect(replies.first?.enhancedStatus == nil)
    }

    @Test("pipelined replies in one chunk come out in order; a bare code and a bare LF are read")
    func severalReplies() throws {
        let replies = try parse("250 2.1.0 Ok\r\n450 4.2.0 Try later\n550\r\n")
        #expect(replies.map(\.code) == [250, 450, 550])
        #expect(replies.map(\.enhancedStatus) == ["2.1.0", "4.2.0", nil])
        #expect(replies[2].lines == [""])
        #expect(replies[1].isTransient && replies[2].isPermanent && replies[0].isPositive)
    }

    @Test("an enhanced status code of another class than the reply's is text, not a status")
    func enhancedStatusClass() throws {
        let replies = try parse("550 2.0.0 odd\r\n354 3.0.0 go ahead\r\n250 2.0 short\r\n")
        #expect(replies.map(\.enhancedStatus) == [nil, nil, nil])
        #expect(replies[0].lines == ["2.0.0 odd"])
    }

    @Test("nothing is returned before the reply's last line")
    func partial() throws {
        var parser = SMTPReplyParser()
        #expect(try parser.feed(Array("250-first\r\n250 sec".utf8)).isEmpty)
        #expect(parser.hasBufferedInput)
        #expect(try parser.feed(Array("ond\r\n".utf8)).map(\.lines) == [["first", "second"]])
        #expect(!parser.hasBufferedInput)
    }

    @Test(
        "malformed lines are errors",
        arguments: [
            "25\r\n", "abc def\r\n", "250x\r\n", "600 too high\r\n", "199 too low\r\n", "260 second digit\r\n",
            "250 nul\u{0}byte\r\n", "\r\n", " 250 leading space\r\n",
        ])
    func malformed(_ text: String) {
        #expect(throws: SMTPReplyError.malformedLine) { try parse(text) }
    }

    @Test("continuation lines with another code are an error")
    func inconsistent() {
        #expect(throws: SMTPReplyError.inconsistentCode) { try parse("250-one\r\n251 two\r\n") }
    }

    @Test("a line past the length limit and a reply past the line limit are errors, and errors stick")
    func limits() throws {
        let limits = SMTPReplyLimits(maxLineLength: 16, maxLines: 3)
        #expect(try parse("250 fourteen c\r\n", limits: limits).map(\.text) == ["fourteen c"])  // 16 bytes
        #expect(throws: SMTPReplyError.lineTooLong) { try parse("250 fifteen ch.\r\n", limits: limits) }
        #expect(try parse("250-a\r\n250-b\r\n250 c\r\n", limits: limits).first?.lines == ["a", "b", "c"])
        #expect(throws: SMTPReplyError.tooManyLines) {
            try parse("250-a\r\n250-b\r\n250-c\r\n250 d\r\n", limits: limits)
        }
        var parser = SMTPReplyParser(limits: limits)
        #expect(throws: SMTPReplyError.lineTooLong) { try parser.feed(Array(repeating: UInt8(ascii: "2"), count: 40)) }
        #expect(throws: SMTPReplyError.lineTooLong) { try parser.feed(Array("250 ok\r\n".utf8)) }
    }
}
