import Testing

@testable import Fetch

@Suite("ResponseParser")
struct ResponseParserTests {
    /// Feeds `text` whole or byte by byte; returns head and body at the end of input.
    private func run(_ text: String, byteByByte: Bool, maxBody: Int = 4096) throws(FetchError) -> (
        ResponseHead, [UInt8]
    ) {
        var parser = ResponseParser(maxHeaderBytes: 8192, maxBodyBytes: maxBody)
        var head: ResponseHead? = nil
        var body: [UInt8]? = nil
        let bytes = Array(text.utf8)
        let pieces: [[UInt8]] = byteByByte ? bytes.map { [$0] } : [bytes]
        for piece in pieces where body == nil {
            var progress = try parser.parse(piece)
            while true {
                if case .head(let h) = progress {
                    head = h
                    progress = try parser.parse([])
                    continue
                }
                if case .complete(let b) = progress { body = b }
                break
            }
        }
        if body == nil { body = try parser.finish() }
        guard let head, let body else { throw .malformedResponse }
        return (head, body)
    }

    @Test("Content-Length, chunked and close-delimited bodies, whole and one byte at a time", arguments: [false, true])
    func framings(byteByByte: Bool) throws {
        let (head, body) = try run(
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A:  b \r\n\r\nhello", byteByByte: byteByByte)
        #expect(head.status == 200)
        #expect(head["x-a"] == "b")
        #expect(body == Array("hello".utf8))
        let chunked =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nT: v\r\n\r\n"
        #expect(try run(chunked, byteByByte: byteByByte).1 == Array("abcde".utf8))
        #expect(try run("HTTP/1.0 200 OK\r\n\r\nuntil close", byteByByte: byteByByte).1 == Array("until close".utf8))
        let interim = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\nContent-Length: 2\n\nok"
        let (h2, b2) = try run(interim, byteByByte: byteByByte)
        #expect(h2.status == 201)
        #expect(b2 == Array("ok".utf8))
    }

    @Test("bodies over the limit are refused, at the limit accepted")
    func limits() throws {
        let exact = String(repeating: "a", count: 4096)
        #expect(try run("HTTP/1.1 200 OK\r\nContent-Length: 4096\r\n\r\n" + exact, byteByByte: false).1.count == 4096)
        #expect(throws: FetchError.bodyTooLarge) {
            try run("HTTP/1.1 200 OK\r\nContent-Length: 4097\r\n\r\n", byteByByte: false)
        }
        #expect(throws: FetchError.bodyTooLarge) { try run("HTTP/1.0 200 OK\r\n\r\n" + exact + "b", byteByByte: false) }
        #expect(throws: FetchError.bodyTooLarge) {
            try run("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1001\r\n", byteByByte: false)
        }
    }

    @Test(
        "malformed responses are refused",
        arguments: [
            "HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 abc OK\r\n\r\n", "SSH-2.0-OpenSSH\r\n\r\n",
            "HTTP/1.1 200 OK\r\nBad Header\r\n\r\n", "HTTP/1.1 200 OK\r\n folded\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
            "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 1",
            "HTTP/1.1 101 Switching\r\n\r\n",
        ])
    func malformed(text: String) {
        #expect(throws: FetchError.malformedResponse) { try run(text, byteByByte: false) }
    }

    @Test("an endless header block is refused at the header limit")
    func headerLimit() {
        var parser = ResponseParser(maxHeaderBytes: 64, maxBodyBytes: 10)
        #expect(throws: FetchError.malformedResponse) {
            try parser.parse(Array(("HTTP/1.1 200 OK\r\n" + String(repeating: "X-Pad: y\r\n", count: 10)).utf8))
        }
    }
}
