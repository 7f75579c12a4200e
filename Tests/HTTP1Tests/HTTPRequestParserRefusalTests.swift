import Testing

@testable import HTTP1

/// One malformed or over-limit input and the refusal it must get.
struct Refusal: CustomTestStringConvertible, Sendable {
    let name: String
    let raw: [UInt8]
    let code: HTTPParseError.Code
    let status: Int
    var testDescription: String { name }

    init(_ name: String, _ raw: String, _ code: HTTPParseError.Code, _ status: Int = 400) {
        self.init(name, Array(raw.utf8), code, status)
    }

    init(_ name: String, _ raw: [UInt8], _ code: HTTPParseError.Code, _ status: Int = 400) {
        self.name = name
        self.raw = raw
        self.code = code
        self.status = status
    }
}

let longTarget = "/" + String(repeating: "a", count: 8 * 1024)
let manyHeaders = (0..<101).map { "X-H\($0): v\r\n" }.joined()
let bigHeader = "X-Big: " + String(repeating: "b", count: 16 * 1024) + "\r\n"

let refusals: [Refusal] = [
    Refusal("request line over 8 KiB", "GET \(longTarget) HTTP/1.1\r\nHost: a\r\n\r\n", .requestLineTooLong, 414),
    Refusal("request line over 8 KiB without end", "GET \(longTarget)", .requestLineTooLong, 414),
    Refusal("header block over 16 KiB", "GET / HTTP/1.1\r\nHost: a\r\n\(bigHeader)\r\n", .headerBlockTooLarge, 431),
    Refusal("101 header fields", "GET / HTTP/1.1\r\nHost: a\r\n\(manyHeaders)\r\n", .tooManyHeaders, 431),
    Refusal(
        "Content-Length over the body limit",
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 65537\r\n\r\n", .bodyTooLarge, 413),
    Refusal(
        "chunked body over the body limit",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n10001\r\n", .bodyTooLarge, 413),
    Refusal(
        "Content-Length with Transfer-Encoding",
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        .contentLengthWithTransferEncoding),
    Refusal(
        "Transfer-Encoding before Content-Length",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
        .contentLengthWithTransferEncoding),
    Refusal(
        "two Content-Length fields, same value",
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", .duplicateContentLength),
    Refusal(
        "two Content-Length fields, different values",
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", .duplicateContentLength),
    Refusal(
        "Content-Length list", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 3\r\n\r\nabc", .duplicateContentLength),
    Refusal(
        "Content-Length sign", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +3\r\n\r\nabc", .invalidContentLength),
    Refusal(
        "Content-Length hex", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x3\r\n\r\nabc", .invalidContentLength),
    Refusal("Content-Length empty", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \r\n\r\n", .invalidContentLength),
    Refusal(
        "Content-Length inner space", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1 2\r\n\r\n", .invalidContentLength
    ),
    Refusal(
        "Content-Length 19 digits",
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000000000000000\r\n\r\n", .invalidContentLength),
    Refusal(
        "transfer coding gzip", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n",
        .unsupportedTransferCoding, 501),
    Refusal(
        "transfer coding gzip, chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
        .unsupportedTransferCoding, 501),
    Refusal(
        "transfer coding chunked with parameter",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked;q=1\r\n\r\n", .unsupportedTransferCoding, 501),
    Refusal(
        "chunked twice",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
        .invalidTransferEncoding),
    Refusal(
        "empty Transfer-Encoding", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: \r\n\r\n", .invalidTransferEncoding
    ),
    Refusal(
        "Transfer-Encoding on HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        .invalidTransferEncoding),
    Refusal("whitespace before colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", .invalidHeaderName),
    Refusal("tab before colon", "GET / HTTP/1.1\r\nHost\t: a\r\n\r\n", .invalidHeaderName),
    Refusal("empty header name", "GET / HTTP/1.1\r\nHost: a\r\n: v\r\n\r\n", .invalidHeaderName),
    Refusal("header without colon", "GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", .invalidHeaderName),
    Refusal("obs-fold with space", "GET / HTTP/1.1\r\nHost: a\r\nX-A: one\r\n two\r\n\r\n", .obsoleteLineFolding),
    Refusal("obs-fold with tab", "GET / HTTP/1.1\r\nHost: a\r\nX-A: one\r\n\ttwo\r\n\r\n", .obsoleteLineFolding),
    Refusal("whitespace line before first header", "GET / HTTP/1.1\r\n Host: a\r\n\r\n", .obsoleteLineFolding),
    Refusal("NUL in header value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: a\u{0}b\r\n\r\n", .invalidHeaderValue),
    Refusal("NUL in header name", "GET / HTTP/1.1\r\nHost: a\r\nX-\u{0}A: b\r\n\r\n", .invalidHeaderName),
    Refusal("bare CR in header value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: a\rb\r\n\r\n", .invalidHeaderValue),
    Refusal("bare CR ending a header line", "GET / HTTP/1.1\r\nHost: a\r\nX-A: a\r\r\n\r\n", .invalidHeaderValue),
    Refusal("bare LF ending a header line", "GET / HTTP/1.1\r\nHost: a\nX-A: b\r\n\r\n", .bareLineEnding),
    Refusal("bare LF ending the head", "GET / HTTP/1.1\r\nHost: a\r\n\n", .bareLineEnding),
    Refusal("bare LF ending the request line", "GET / HTTP/1.1\nHost: a\r\n\r\n", .bareLineEnding),
    Refusal("bare CR in the request line", "GET /a\rb HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget),
    Refusal("DEL in header value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: a\u{7F}\r\n\r\n", .invalidHeaderValue),
    Refusal("missing Host on 1.1", "GET / HTTP/1.1\r\nX-A: b\r\n\r\n", .missingHost),
    Refusal("repeated Host on 1.1", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .duplicateHost),
    Refusal("repeated Host on 1.0", "GET / HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n", .duplicateHost),
    Refusal("Host with userinfo", "GET / HTTP/1.1\r\nHost: u@h\r\n\r\n", .invalidHost),
    Refusal("Host with userinfo and port", "GET / HTTP/1.1\r\nHost: user:pw@example.com:80\r\n\r\n", .invalidHost),
    Refusal("Host with a path", "GET / HTTP/1.1\r\nHost: example.com/x\r\n\r\n", .invalidHost),
    Refusal("Host with a space inside", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", .invalidHost),
    Refusal(
        "chunk size not hex",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n", .invalidChunkSize),
    Refusal(
        "chunk size empty", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n\r\nab\r\n0\r\n\r\n",
        .invalidChunkSize),
    Refusal(
        "chunk size negative", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n\r\n",
        .invalidChunkSize),
    Refusal(
        "chunk size 0x prefix",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0x2\r\nab\r\n0\r\n\r\n",
        .invalidChunkSize),
    Refusal(
        "chunk size too many digits",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n000000001\r\na\r\n0\r\n\r\n", .invalidChunkSize
    ),
    Refusal(
        "chunk size digits without end",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "0", count: 400),
        .invalidChunkSize),
    Refusal(
        "chunk extension over the cap",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "e", count: 300)
            + "\r\na\r\n0\r\n\r\n", .invalidChunkExtension),
    Refusal(
        "NUL in chunk extension",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1;a=\u{0}\r\na\r\n0\r\n\r\n",
        .invalidChunkExtension),
    Refusal(
        "bare LF after chunk size", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\na\r\n0\r\n\r\n",
        .bareLineEnding),
    Refusal(
        "bare CR in chunk line", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\ra\r\n0\r\n\r\n",
        .invalidChunkSize),
    Refusal(
        "chunk data longer than its size",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n0\r\n\r\n", .invalidChunkFraming),
    Refusal(
        "chunk data ended by bare LF",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\n0\r\n\r\n", .invalidChunkFraming),
    Refusal(
        "NUL in trailer", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: \u{0}\r\n\r\n",
        .invalidHeaderValue),
    Refusal(
        "trailers over the cap",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: "
            + String(repeating: "t", count: 5000)
            + "\r\n\r\n", .trailersTooLarge, 431),
    // Found by the fuzzer: the verdict once depended on how the bytes were split.
    Refusal(
        "over-long chunk line ended by a bare LF",
        "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;" + String(repeating: "x", count: 300)
            + "\n0\r\n\r\n", .invalidChunkExtension),
    Refusal(
        "over-long header line ended by a bare LF",
        "GET / HTTP/1.1\r\nHost: a\r\nX-A: " + String(repeating: "x", count: 17000) + "\n\r\n",
        .headerBlockTooLarge, 431),
    Refusal("HTTP/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", .unsupportedVersion, 505),
    Refusal("HTTP/1.2", "GET / HTTP/1.2\r\nHost: a\r\n\r\n", .unsupportedVersion, 505),
    Refusal("HTTP/0.9 without version", "GET /\r\n\r\n", .invalidRequestLine),
    Refusal("lowercase version", "GET / http/1.1\r\nHost: a\r\n\r\n", .invalidVersion),
    Refusal("version with extra digits", "GET / HTTP/1.10\r\nHost: a\r\n\r\n", .invalidVersion),
    Refusal("two spaces after method", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", .invalidRequestLine),
    Refusal("space inside target", "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", .invalidVersion),
    Refusal("method with slash", "GE/T / HTTP/1.1\r\nHost: a\r\n\r\n", .invalidMethod),
    Refusal("target not origin form", "GET foo HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget),
    Refusal("asterisk target on GET", "GET * HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget),
    Refusal(
        "non-ASCII byte in target", Array("GET /caf".utf8) + [0xC3, 0xA9] + Array(" HTTP/1.1\r\nHost: a\r\n\r\n".utf8),
        .invalidTarget),
    Refusal(
        "Expect other than 100-continue", "POST / HTTP/1.1\r\nHost: a\r\nExpect: magic\r\n\r\n",
        .unsupportedExpectation, 417),
    Refusal(
        "too many empty lines first", String(repeating: "\r\n", count: 9) + "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        .tooManyEmptyLines),
]

@Suite("HTTPRequestParser refusals")
struct HTTPRequestParserRefusalTests {
    @Test("refused with the right status, fed whole and byte by byte", arguments: refusals, Feeding.allCases)
    func refused(_ refusal: Refusal, feeding: Feeding) {
        let outcome = parse(refusal.raw, feeding: feeding)
        #expect(outcome.error?.code == refusal.code)
        #expect(outcome.error?.status.code == refusal.status)
        #expect(outcome.requests.isEmpty)
    }

    @Test("a failed parser keeps failing and yields nothing more")
    func staysFailed() {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: "GET / HTTP/1.1\r\nHost : a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        #expect(throws: HTTPParseError(.invalidHeaderName)) { try parser.next() }
        #expect(parser.hasFailed)
        #expect(throws: HTTPParseError(.invalidHeaderName)) { try parser.next() }
    }

    @Test("a TLS ClientHello on the plain port is refused at its first byte, before any line ends")
    func tlsHandshakeRefusedAtOnce() {
        // The record header of a TLS 1.2/1.3 ClientHello: handshake (0x16), version 3.1, a length, client_hello.
        let clientHello: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03]
        for prefix in [Array(clientHello.prefix(1)), clientHello] {
            var parser = HTTPRequestParser()
            parser.append(contentsOf: prefix)
            #expect(throws: HTTPParseError(.invalidMethod)) { try parser.next() }
        }
        var waiting = HTTPRequestParser()
        waiting.append(contentsOf: "\r\nG".utf8)
        #expect((try? waiting.next()) == .some(nil), "an empty line and a method's first byte wait for more")
        var pipelined = HTTPRequestParser()
        pipelined.append(contentsOf: Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8) + [0x16])
        #expect((try? pipelined.next()) != nil, "the complete request before it is served")
        #expect(throws: HTTPParseError(.invalidMethod)) { try pipelined.next() }
    }

    @Test("a line that cannot start with a method is refused as a method whether it arrives whole or in pieces")
    func leadingSpaceSameVerdict() {
        let line = Array(" 8\r?\r\n".utf8)
        var whole = HTTPRequestParser()
        whole.append(contentsOf: line)
        #expect(throws: HTTPParseError(.invalidMethod)) { try whole.next() }
        var piece = HTTPRequestParser()
        piece.append(contentsOf: line.prefix(2))
        #expect(throws: HTTPParseError(.invalidMethod)) { try piece.next() }
        // A byte that cannot start a method, then a bare LF: the method is what is refused, whole or in pieces.
        let bareLF: [UInt8] = [0x0D, 0x0A, 0xFF, 0xFF, 0x74, 0x0A]
        var wholeLF = HTTPRequestParser()
        wholeLF.append(contentsOf: bareLF)
        #expect(throws: HTTPParseError(.invalidMethod)) { try wholeLF.next() }
        var pieceLF = HTTPRequestParser()
        pieceLF.append(contentsOf: bareLF.prefix(3))
        #expect(throws: HTTPParseError(.invalidMethod)) { try pieceLF.next() }
    }

    @Test("an oversized Content-Length is refused before any body byte arrives")
    func bodyRefusedFromHead() throws {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n".utf8)
        guard case .head(let head)? = try parser.next() else {
            Issue.record("expected a head event")
            return
        }
        #expect(head.contentLength == 100)
        parser.setBodyLimit(99)
        #expect(throws: HTTPParseError(.bodyTooLarge)) { try parser.next() }
    }

    @Test("a per-request body limit applies to chunked bodies as they grow")
    func chunkedOverride() {
        let raw = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n4\r\nefgh\r\n0\r\n\r\n"
        for feeding in Feeding.allCases {
            #expect(parse(raw, feeding: feeding, bodyLimit: 7).error?.code == .bodyTooLarge)
            #expect(parse(raw, feeding: feeding, bodyLimit: 8).requests.first?.request.body == Array("abcdefgh".utf8))
        }
    }

    @Test("smaller configured limits are enforced")
    func configuredLimits() {
        var limits = HTTPParserLimits()
        limits.maxRequestLineLength = 16
        limits.maxHeaderCount = 2
        limits.maxHeaderBlockLength = 40
        for feeding in Feeding.allCases {
            #expect(
                parse("GET /0123456789ab HTTP/1.1\r\n", feeding: feeding, limits: limits).error?.code
                    == .requestLineTooLong)
            #expect(parse("GET / HTTP/1.1\r\nHost: a\r\n\r\n", feeding: feeding, limits: limits).requests.count == 1)
            #expect(
                parse("GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\n\r\n", feeding: feeding, limits: limits)
                    .error?.code == .tooManyHeaders)
            #expect(
                parse(
                    "GET / HTTP/1.1\r\nHost: a\r\nA: \(String(repeating: "x", count: 40))\r\n\r\n",
                    feeding: feeding, limits: limits
                ).error?.code == .headerBlockTooLarge)
        }
    }
}
