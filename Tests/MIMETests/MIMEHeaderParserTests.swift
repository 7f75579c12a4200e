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
}
