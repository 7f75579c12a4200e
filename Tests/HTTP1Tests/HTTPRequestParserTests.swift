import Testing

@testable import HTTP1

/// A valid input and what must come out of it.
struct Accepted: CustomTestStringConvertible, Sendable {
    let name: String
    let raw: String
    /// (method, target, body, keepAlive) per request, in order.
    let expected: [(HTTPMethod, String, String, Bool)]
    var testDescription: String { name }
}

let accepted: [Accepted] = [
    Accepted(name: "minimal GET", raw: "GET / HTTP/1.1\r\nHost: a\r\n\r\n", expected: [(.GET, "/", "", true)]),
    Accepted(
        name: "query string kept in target", raw: "GET /p?a=1&b=%20 HTTP/1.1\r\nHost: a\r\n\r\n",
        expected: [(.GET, "/p?a=1&b=%20", "", true)]),
    Accepted(
        name: "Content-Length body", raw: "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
        expected: [(.POST, "/x", "hello", true)]),
    Accepted(
        name: "Content-Length zero", raw: "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
        expected: [(.POST, "/x", "", true)]),
    Accepted(
        name: "Content-Length with leading zeros",
        raw: "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 003\r\n\r\nabc", expected: [(.POST, "/x", "abc", true)]),
    Accepted(
        name: "chunked body with extension and trailers",
        raw: "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n6 ; x\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n",
        expected: [(.POST, "/c", "hello world", true)]),
    Accepted(
        name: "chunked in any case with uppercase hex",
        raw: "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: ChUnKeD\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n",
        expected: [(.POST, "/c", "0123456789", true)]),
    Accepted(
        name: "HTTP/1.0 closes by default", raw: "GET / HTTP/1.0\r\n\r\n", expected: [(.GET, "/", "", false)]),
    Accepted(
        name: "HTTP/1.0 keep-alive", raw: "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
        expected: [(.GET, "/", "", true)]),
    Accepted(
        name: "HTTP/1.1 Connection: close", raw: "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        expected: [(.GET, "/", "", false)]),
    Accepted(
        name: "Connection token list", raw: "GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade, CLOSE\r\n\r\n",
        expected: [(.GET, "/", "", false)]),
    Accepted(
        name: "three pipelined requests",
        raw: "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi"
            + "GET /3 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        expected: [(.GET, "/1", "", true), (.POST, "/2", "hi", true), (.GET, "/3", "", false)]),
    Accepted(
        name: "leading empty line ignored", raw: "\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
        expected: [(.GET, "/", "", true)]),
    Accepted(
        name: "header value whitespace trimmed, inner kept",
        raw: "GET / HTTP/1.1\r\nHost: a\r\nX-A: \t one  two \t\r\n\r\n", expected: [(.GET, "/", "", true)]),
    Accepted(
        name: "empty header value", raw: "GET / HTTP/1.1\r\nHost: a\r\nX-Empty:\r\n\r\n",
        expected: [(.GET, "/", "", true)]),
    Accepted(
        name: "obs-text in header value", raw: "GET / HTTP/1.1\r\nHost: a\r\nX-A: caf\u{E9}\r\n\r\n",
        expected: [(.GET, "/", "", true)]),
    Accepted(
        name: "unknown method token", raw: "PROPFIND /d HTTP/1.1\r\nHost: a\r\n\r\n",
        expected: [(.other("PROPFIND"), "/d", "", true)]),
    Accepted(
        name: "OPTIONS asterisk", raw: "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", expected: [(.OPTIONS, "*", "", true)]),
    Accepted(
        name: "absolute-form target", raw: "GET http://a/p?q=1 HTTP/1.1\r\nHost: a\r\n\r\n",
        expected: [(.GET, "http://a/p?q=1", "", true)]),
    Accepted(
        name: "HEAD", raw: "HEAD /h HTTP/1.1\r\nHost: a\r\n\r\n", expected: [(.HEAD, "/h", "", true)]),
    Accepted(
        name: "Expect 100-continue with body",
        raw: "PUT /u HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 3\r\n\r\nabc",
        expected: [(.PUT, "/u", "abc", true)]),
    Accepted(
        name: "exactly 100 header fields",
        raw: "GET / HTTP/1.1\r\nHost: a\r\n" + (0..<99).map { "X-\($0): v\r\n" }.joined() + "\r\n",
        expected: [(.GET, "/", "", true)]),
    Accepted(
        name: "body at exactly the limit",
        raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 65536\r\n\r\n" + String(repeating: "z", count: 65536),
        expected: [(.POST, "/", String(repeating: "z", count: 65536), true)]),
]

@Suite("HTTPRequestParser")
struct HTTPRequestParserTests {
    @Test("valid input parses the same fed whole and byte by byte", arguments: accepted, Feeding.allCases)
    func acceptedInput(_ input: Accepted, feeding: Feeding) {
        let outcome = parse(input.raw, feeding: feeding)
        #expect(outcome.error == nil)
        #expect(outcome.requests.count == input.expected.count)
        for (got, want) in zip(outcome.requests, input.expected) {
            #expect(got.request.method == want.0)
            #expect(got.request.target == want.1)
            #expect(got.request.body == Array(want.2.utf8))
            #expect(got.keepAlive == want.3)
        }
    }

    @Test("headers keep order, spelling and trimmed values")
    func headerValues() throws {
        for feeding in Feeding.allCases {
            let outcome = parse(
                "GET / HTTP/1.1\r\nHost: example\r\nX-A: \t one  two \t\r\nx-a: second\r\nX-Empty:\r\n\r\n",
                feeding: feeding)
            let request = try #require(outcome.requests.first?.request)
            #expect(request.headers["x-a"] == "one  two")
            #expect(request.headers.values("X-A") == ["one  two", "second"])
            #expect(request.headers["X-Empty"] == "")
            #expect(request.headers["host"] == "example")
            #expect(Array(request.headers).map(\.name) == ["Host", "X-A", "x-a", "X-Empty"])
        }
    }

    @Test(
        "path and query split from each target form",
        arguments: [
            ("GET /a/b HTTP/1.1", "/a/b", nil), ("GET /a/b?x=1&y HTTP/1.1", "/a/b", "x=1&y"),
            ("GET /a? HTTP/1.1", "/a", ""),
            ("GET http://h.example/p?q=1 HTTP/1.1", "/p", "q=1"), ("GET http://h.example HTTP/1.1", "/", nil),
            ("OPTIONS * HTTP/1.1", "*", nil),
        ] as [(String, String, String?)])
    func pathAndQuery(line: String, path: String, query: String?) throws {
        let outcome = parse(line + "\r\nHost: a\r\n\r\n", feeding: .whole)
        let request = try #require(outcome.requests.first?.request)
        #expect(request.path == path)
        #expect(request.query == query)
    }

    @Test("common names keep the spelling received, in their usual spelling, lowercase or any other")
    func commonHeaderNames() throws {
        let names = [
            "Host", "accept", "Cookie", "origin", "User-Agent", "connection", "Content-Type", "x-request-id",
            "Authorization", "content-length", "Accept-Encoding", "accept-language", "X-Forwarded-For", "CONNECTION",
            "aCCEPT", "User-agent", "X-Request-ID", "Hosts", "Accepts",
        ]
        let lines = names.enumerated().map { index, name in
            name.lowercased() == "content-length" ? "\(name): 0" : "\(name): \(index)"
        }
        let outcome = parse("GET / HTTP/1.1\r\n" + lines.joined(separator: "\r\n") + "\r\n\r\n", feeding: .whole)
        let request = try #require(outcome.requests.first?.request)
        #expect(Array(request.headers).map(\.name) == names)
        #expect(request.headers["ACCEPT-LANGUAGE"] == "11" && request.headers["hosts"] == "17")
    }

    @Test("a head is announced before its body with the framing facts")
    func headAnnouncement() throws {
        for feeding in Feeding.allCases {
            let outcome = parse(
                "POST /a?b HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok",
                feeding: feeding)
            let head = try #require(outcome.heads.first)
            #expect(head.expectsContinue)
            #expect(head.contentLength == 2)
            #expect(!head.isChunked)
            #expect(head.path == "/a")
            #expect(outcome.requests.count == 1)
        }
        let chunked = parse(
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", feeding: .whole)
        #expect(chunked.heads.first?.isChunked == true)
        #expect(chunked.heads.first?.contentLength == nil)
    }

    @Test("Expect is ignored on HTTP/1.0")
    func expectOnOneZero() throws {
        let outcome = parse("POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx", feeding: .whole)
        #expect(outcome.heads.first?.expectsContinue == false)
    }

    @Test("requests without a body produce no head event")
    func noHeadForEmptyBody() {
        let outcome = parse("GET / HTTP/1.1\r\nHost: a\r\n\r\n", feeding: .whole)
        #expect(outcome.heads.isEmpty)
        #expect(outcome.requests.count == 1)
    }

    @Test("partial input waits; the parser reports a partial message")
    func partialMessage() throws {
        var parser = HTTPRequestParser()
        #expect(!parser.hasPartialMessage)
        parser.append(contentsOf: "GET / HTTP/1.1\r\nHo".utf8)
        #expect(try parser.next() == nil)
        #expect(parser.hasPartialMessage)
        parser.append(contentsOf: "st: a\r\n\r\nGET /2 HT".utf8)
        guard case .request(let first, _)? = try parser.next() else {
            Issue.record("expected the first request")
            return
        }
        #expect(first.path == "/")
        #expect(try parser.next() == nil)
        #expect(parser.hasPartialMessage)
        parser.append(contentsOf: "TP/1.1\r\nHost: a\r\n\r\n".utf8)
        guard case .request(let second, _)? = try parser.next() else {
            Issue.record("expected the second request")
            return
        }
        #expect(second.path == "/2")
        #expect(!parser.hasPartialMessage)
        #expect(parser.bufferedByteCount == 0)
    }

    @Test("the body limit resets to the default after each request")
    func bodyLimitResets() throws {
        var parser = HTTPRequestParser(limits: HTTPParserLimits(maxBodyLength: 4))
        parser.append(contentsOf: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 6\r\n\r\nabcdef".utf8)
        guard case .head? = try parser.next() else {
            Issue.record("expected a head")
            return
        }
        parser.setBodyLimit(10)
        guard case .request(let request, _)? = try parser.next() else {
            Issue.record("expected a request")
            return
        }
        #expect(request.body.count == 6)
        parser.append(contentsOf: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 6\r\n\r\n".utf8)
        guard case .head? = try parser.next() else {
            Issue.record("expected a head")
            return
        }
        #expect(throws: HTTPParseError(.bodyTooLarge)) { try parser.next() }
    }

    /// The next complete request from `parser`; fails the test when the parser has none.
    private func nextRequest(_ parser: inout HTTPRequestParser) throws -> HTTPRequest {
        let event = try parser.next()
        let request: HTTPRequest? = if case .request(let request, _)? = event { request } else { nil }
        return try #require(request, "expected a request, got \(String(describing: event))")
    }

    @Test("a reclaimed request's storage carries the next request, with none of the first's fields")
    func reclaimedStorageReused() throws {
        var parser = HTTPRequestParser()
        parser.append(
            contentsOf: "POST /first?q=1 HTTP/1.1\r\nHost: a\r\nX-Only-First: 1\r\nContent-Length: 2\r\n\r\nhi".utf8)
        let head = try parser.next()
        let isHead = if case .head? = head { true } else { false }
        try #require(isHead, "expected the head before the request")
        var first = try nextRequest(&parser)
        first.remoteAddress = "192.0.2.1"
        first.requestID = "first-id"
        let storage = ObjectIdentifier(first.storage)
        parser.reclaim(consume first)
        parser.append(contentsOf: "GET /second HTTP/1.1\r\nHost: b\r\n\r\n".utf8)
        let second = try nextRequest(&parser)
        #expect(ObjectIdentifier(second.storage) == storage)
        #expect(second.method == .GET && second.target == "/second" && second.path == "/second")
        #expect(second.query == nil && second.body.isEmpty)
        #expect(second.headers.map(\.name) == ["Host"] && second.headers["Host"] == "b")
        #expect(second.remoteAddress.isEmpty && second.requestID.isEmpty)
    }

    @Test("a request still held elsewhere is not reclaimed: the copy keeps its fields")
    func heldRequestNotReclaimed() throws {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: "GET /kept HTTP/1.1\r\nHost: a\r\nX-Kept: yes\r\n\r\n".utf8)
        let first = try nextRequest(&parser)
        let kept = first
        parser.reclaim(first)
        parser.append(contentsOf: "GET /next HTTP/1.1\r\nHost: b\r\n\r\n".utf8)
        let second = try nextRequest(&parser)
        #expect(ObjectIdentifier(second.storage) != ObjectIdentifier(kept.storage))
        #expect(kept.target == "/kept" && kept.headers["X-Kept"] == "yes" && kept.headers["Host"] == "a")
        #expect(second.target == "/next" && second.headers["X-Kept"] == nil)
    }
}

extension HTTPParserEvent: Equatable {
    public static func == (lhs: HTTPParserEvent, rhs: HTTPParserEvent) -> Bool {
        switch (lhs, rhs) {
        case (.head(let a), .head(let b)): return a.target == b.target
        case (.request(let a, let x), .request(let b, let y)): return a.target == b.target && x == y
        default: return false
        }
    }
}
