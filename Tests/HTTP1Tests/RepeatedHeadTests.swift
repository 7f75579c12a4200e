import Testing

@testable import HTTP1

@Suite("A header block repeated by the next request gives what parsing it gives")
struct RepeatedHeaderBlockTests {
    private func request(_ parser: inout HTTPRequestParser, _ raw: String) throws -> (HTTPRequest, Bool) {
        parser.append(contentsOf: raw.utf8)
        var event = try parser.next()
        if case .head? = event { event = try parser.next() }
        let request: (HTTPRequest, Bool)? =
            if case .request(let request, let keepAlive)? = event { (request, keepAlive) } else { nil }
        return try #require(request, "expected a request from \(raw.debugDescription)")
    }

    @Test("the same block on every request: the same fields and framing, reclaimed or held")
    func repeated() throws {
        let block = "Host: a\r\nX-Token: t1\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi"
        for reclaiming in [true, false] {
            var parser = HTTPRequestParser()
            var held: [HTTPRequest] = []
            for target in ["/1", "/2", "/3"] {
                let (request, keepAlive) = try self.request(&parser, "POST \(target) HTTP/1.1\r\n" + block)
                #expect(request.target == target && request.body == Array("hi".utf8) && !keepAlive)
                #expect(request.headers.map(\.name) == ["Host", "X-Token", "Connection", "Content-Length"])
                #expect(request.headers["X-Token"] == "t1")
                if reclaiming { parser.reclaim(request) } else { held.append(request) }
            }
            #expect(held.allSatisfy { $0.headers["Host"] == "a" })
        }
    }

    @Test("one byte changed: the block is parsed again, and a held request keeps its own fields")
    func changed() throws {
        var parser = HTTPRequestParser()
        let (first, _) = try request(&parser, "GET / HTTP/1.1\r\nHost: a\r\nX-Token: t1\r\n\r\n")
        var kept = first
        kept.headers.add("X-Added", "1")  // a handler changing its copy changes no other request
        parser.reclaim(first)
        let (second, _) = try request(&parser, "GET / HTTP/1.1\r\nHost: a\r\nX-Token: t2\r\n\r\n")
        #expect(second.headers["X-Token"] == "t2" && second.headers["X-Added"] == nil)
        parser.reclaim(second)
        let (third, _) = try request(&parser, "GET / HTTP/1.1\r\nHost: a\r\nX-Token: t2\r\n\r\n")
        #expect(third.headers.map(\.value) == ["a", "t2"])
        let (fourth, _) = try request(&parser, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(fourth.headers.map(\.value) == ["a"])
        #expect(first.headers.map(\.value) == ["a", "t1"] && kept.headers.count == 3)
    }

    @Test("the request line's checks still apply to a repeated block")
    func versionChecks() throws {
        let block = "Host: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi"
        var parser = HTTPRequestParser()
        for (version, expects) in [("1.0", false), ("1.1", true), ("1.0", false)] {
            parser.append(contentsOf: "POST / HTTP/\(version)\r\n\(block)".utf8)
            guard case .head(let head)? = try parser.next(), case .request? = try parser.next() else {
                Issue.record("expected a head and a request")
                return
            }
            #expect(head.expectsContinue == expects, "HTTP/\(version)")
        }
        // A block without Host, accepted after a 1.0 request line, is refused after a 1.1 one.
        var missingHost = HTTPRequestParser()
        _ = try request(&missingHost, "GET / HTTP/1.0\r\nAccept: */*\r\n\r\n")
        missingHost.append(contentsOf: "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n".utf8)
        #expect(throws: HTTPParseError.self) { try missingHost.next() }
    }

    @Test("pipelined requests with the same block, and a block split over reads")
    func pipelinedAndSplit() throws {
        let one = "GET /p HTTP/1.1\r\nHost: a\r\nAccept: x\r\n\r\n"
        var parser = HTTPRequestParser()
        parser.append(contentsOf: (one + one + one).utf8)
        var count = 0
        while case .request(let request, _)? = try parser.next() {
            #expect(request.headers.map(\.value) == ["a", "x"])
            count += 1
        }
        #expect(count == 3)
        for byte in one.utf8 { parser.append(contentsOf: [byte]) }
        guard case .request(let split, _)? = try parser.next() else {
            Issue.record("expected the split request")
            return
        }
        #expect(split.headers.map(\.value) == ["a", "x"])
    }
}

@Suite("A request line repeated by the next request gives what parsing it gives")
struct RepeatedRequestLineTests {
    private func requests(_ raw: String) throws -> [HTTPRequest] {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: raw.utf8)
        var requests: [HTTPRequest] = []
        while let event = try parser.next() {
            if case .request(let request, _) = event {
                requests.append(request)
                parser.reclaim(request)
            }
        }
        return requests
    }

    @Test("repeated, changed in one byte, in version, and too long to keep")
    func lines() throws {
        let long = "/" + String(repeating: "l", count: 1100) + "?q=1"
        let lines = [
            "GET /a?x=1 HTTP/1.1", "GET /a?x=1 HTTP/1.1", "GET /a?x=2 HTTP/1.1", "GET /a?x=2 HTTP/1.0",
            "PURGE /a?x=2 HTTP/1.1", "PURGE /a?x=2 HTTP/1.1", "GET \(long) HTTP/1.1", "GET \(long) HTTP/1.1",
            "GET http://h/abs HTTP/1.1", "GET http://h/abs HTTP/1.1",
        ]
        let parsed = try requests(lines.map { "\($0)\r\nHost: h\r\nConnection: keep-alive\r\n\r\n" }.joined())
        #expect(parsed.count == lines.count)
        for (line, request) in zip(lines, parsed) {
            let parts = line.split(separator: " ").map(String.init)
            #expect(request.method.rawValue == parts[0] && request.target == parts[1], "\(line)")
            #expect(request.version == (parts[2] == "HTTP/1.0" ? .http1_0 : .http1_1), "\(line)")
        }
        #expect(parsed[1].path == "/a" && parsed[1].query == "x=1" && parsed[2].query == "x=2")
        #expect(parsed[7].path == String(long.prefix(1101)) && parsed[7].query == "q=1")
        #expect(parsed[9].path == "/abs")
    }
}

@Suite("The parser keeps the last head read whole, and gives what a parser without the cache gives")
struct RepeatedHeadCacheTests {
    private func events(_ reads: [String], cached: Bool) throws -> [String] {
        var parser = HTTPRequestParser(limits: HTTPParserLimits(), cachesRepeatedHead: cached)
        var seen: [String] = []
        for read in reads {
            parser.append(contentsOf: read.utf8)
            while let event = try parser.next() {
                switch event {
                case .head(let head):
                    seen.append("head \(head.method.rawValue) \(head.target) continue=\(head.expectsContinue)")
                case .request(let request, let keepAlive):
                    let fields = request.headers.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
                    seen.append(
                        "\(request.method.rawValue) \(request.target) \(request.version) \(fields) ka=\(keepAlive)")
                    parser.reclaim(request)
                }
            }
        }
        return seen
    }

    @Test("a head read whole is kept; one split over reads, or longer than the most kept, is not")
    func kept() throws {
        let head = "GET /k HTTP/1.1\r\nHost: a\r\n\r\n"
        var parser = HTTPRequestParser()
        parser.append(contentsOf: head.utf8)
        _ = try parser.next()
        #expect(parser.lastHead.bytes == Array(head.utf8))
        var split = HTTPRequestParser()
        split.append(contentsOf: head.utf8.prefix(20))  // the request line, then the rest: the bytes move between
        _ = try split.next()
        split.append(contentsOf: head.utf8.dropFirst(20))
        _ = try split.next()
        #expect(split.lastHead.bytes.isEmpty)
        var long = HTTPRequestParser()
        long.append(contentsOf: "GET /k HTTP/1.1\r\nHost: a\r\nX: \(String(repeating: "v", count: 4096))\r\n\r\n".utf8)
        _ = try long.next()
        #expect(long.lastHead.bytes.isEmpty)
    }

    @Test("the same events with and without the cache: repeats, versions, bodies, Expect, split reads")
    func sameAsFresh() throws {
        let get = "GET /a?x=1 HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\n"
        let post = "POST /p HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"
        let old = "POST /p HTTP/1.0\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"
        let reads = [
            get + get, get, String(get.prefix(7)), String(get.dropFirst(7)) + get, post + "hi" + post, "ho",
            old + "hi" + post + "hu", "\r\n" + get + get,
        ]
        let cached = try events(reads, cached: true)
        #expect(cached.count == 15)
        #expect(cached == (try events(reads, cached: false)))
    }
}
