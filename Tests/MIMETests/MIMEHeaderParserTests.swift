import Testing

@testable import MIME

@Suite("MIME header parser, fed byte by byte")
struct MIMEHeaderParserTests {
    static let block = Array(
        "Subject: first\r\n line folded\r\nX-Bare: lf only\nNo colon here\n: empty name\nTo:  a@b \r\n\r\nbody".utf8)

    func parse(_ bytes: [UInt8], chunk: Int) throws -> (fields: [String], used: Int) {
        var parser = MIMEHeaderParser(limits: .default)
        var used = 0
        var index = 0
        while index < bytes.count, !parser.isComplete {
            let end = min(bytes.count, index + chunk)
            used += try parser.feed(bytes[index..<end])
            index = end
        }
        return (parser.fields.map { "\($0.name)=\(String(decoding: $0.value, as: UTF8.self))" }, used)
    }

    @Test("folding, CRLF and bare LF, lines without a name skipped; the same whatever the chunks")
    func chunks() throws {
        let whole = try parse(Self.block, chunk: Self.block.count)
        #expect(whole.fields == ["Subject= first line folded", "X-Bare= lf only", "To=  a@b "])
        #expect(Array(Self.block[whole.used...]) == Array("body".utf8))
        for size in [1, 2, 3, 7] {
            let chunked = try parse(Self.block, chunk: size)
            #expect(chunked.fields == whole.fields && chunked.used == whole.used, "chunk \(size)")
        }
    }

    @Test("a header block past its byte or field limit throws")
    func limits() throws {
        var small = MIMEHeaderParser(limits: MIMELimits(maximumHeaderBytes: 10))
        #expect(throws: MIMEError.headerTooLarge) { try small.feed(Array("Subject: too long\r\n\r\n".utf8)) }
        var few = MIMEHeaderParser(limits: MIMELimits(maximumHeaderCount: 2))
        #expect(throws: MIMEError.tooManyHeaders) { try few.feed(Array("A: 1\nB: 2\nC: 3\n\n".utf8)) }
    }

    @Test("a name with a space inside is no field name; white space around a name is trimmed")
    func spacedNames() throws {
        let parsed = try parse(
            Array("Bad Name: skipped\r\n folded: skipped too\r\nSubject\t: kept\r\n\u{00e9}t\u{00e9} x: skipped\r\n\r\n".utf8),
            chunk: 64)
        #expect(parsed.fields == ["Subject= kept"])
    }

    @Test("MIMEPartTree.header(of:) is the header the whole tree reads, for every shape and past a limit")
    func headerAlone() {
        let inputs = [
            Self.block, Array("no blank line\r\nSubject: x".utf8), Array("\r\nbody only".utf8), [],
            Array("Subject: a\n\nbare LF".utf8),
            Array("Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\r\none\r\n--b--\r\n".utf8),
            Array(String(repeating: "X-Many: 1\r\n", count: 1001).utf8) + Array("\r\nbody".utf8),
        ]
        for raw in inputs {
            #expect(MIMEPartTree.header(of: raw[...]) == MIMEPartTree(raw[...]).header, "\(raw.prefix(24))")
        }
        // At and around each limit, where finding the empty line alone must give way to the parser's count.
        let small = [MIMELimits(maximumHeaderBytes: 16), MIMELimits(maximumHeaderCount: 2)]
        let edges = [
            "A: 1\r\nB: 22\r\n\r\nx", "A: 1\r\nB: 2\r\n\r\nx", "A: 1\r\nB: 2\r\n\r\n", "A: 1\n B\n C\n\nx",
            "A: 1\nB: 2\nC: 3\n\nx", "A: 1\nno colon\nB: 2\n\nx", "\r\r\nA: 1\n\nx",
        ].map { Array($0.utf8) }
        for limits in small {
            for raw in edges {
                #expect(
                    MIMEPartTree.header(of: raw[...], limits: limits) == MIMEPartTree(raw[...], limits: limits).header,
                    "\(String(decoding: raw, as: UTF8.self)) within \(limits)")
            }
        }
        let tooMany = inputs[inputs.count - 1]
        #expect(MIMEPartTree.header(of: tooMany[...]).isEmpty, "past the field limit: no header, as the tree reads it")
    }
}
