import Testing

@testable import HTTP1

@Suite("HTTPResponseEncoder and HTTPDate")
struct HTTPResponseEncoderTests {
    let date = HTTPDate.imfFixdate(unixSeconds: 784_111_777)

    func encode(
        _ response: HTTPResponse, method: HTTPMethod = .GET, version: HTTPVersion = .http1_1, keepAlive: Bool = true,
        requestID: String = "rid"
    ) -> String {
        let encoder = HTTPResponseEncoder(serverName: "Postern")
        let context = HTTPResponseEncoder.Context(
            method: method, version: version, keepAlive: keepAlive, requestID: requestID)
        var out: [UInt8] = []
        encoder.encode(response, context: context, date: date, into: &out)
        // Written into exactly the room it asks for, the same bytes.
        let written = [UInt8](
            unsafeUninitializedCapacity: encoder.maximumLength(response, context: context, date: date)
        ) {
            room, count in count = encoder.write(response, context: context, date: date, into: room)
        }
        #expect(written == out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test("IMF-fixdate matches RFC 9110's example and other known instants")
    func dates() {
        #expect(String(decoding: date, as: UTF8.self) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(String(decoding: HTTPDate.imfFixdate(unixSeconds: 0), as: UTF8.self) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(
            String(decoding: HTTPDate.imfFixdate(unixSeconds: 951_782_400), as: UTF8.self)
                == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(
            String(decoding: HTTPDate.imfFixdate(unixSeconds: 4_102_444_799), as: UTF8.self)
                == "Thu, 31 Dec 2099 23:59:59 GMT")
    }

    @Test("a JSON response carries every server header in order")
    func fullResponse() {
        let text = encode(.json(.ok, #"{"status":"ok"}"#))
        #expect(
            text == "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 15\r\n"
                + "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\nServer: Postern\r\nX-Content-Type-Options: nosniff\r\n"
                + "X-Request-Id: rid\r\n\r\n{\"status\":\"ok\"}")
    }

    @Test("HEAD keeps Content-Length and drops the body", arguments: [HTTPMethod.HEAD, .other("HEAD")])
    func head(method: HTTPMethod) {
        let text = encode(.text(.ok, "hello"), method: method)
        #expect(text.contains("Content-Length: 5\r\n"))
        #expect(text.hasSuffix("\r\n\r\n"))
    }

    @Test("204 and 304 carry neither body nor Content-Length")
    func noBody() {
        let text = encode(HTTPResponse(status: .noContent, body: Array("x".utf8)))
        #expect(!text.contains("Content-Length"))
        #expect(text.hasSuffix("\r\n\r\n"))
    }

    @Test("Connection: close when not keeping alive; keep-alive only for 1.0 clients")
    func connectionHeader() {
        #expect(encode(.text(.ok, ""), keepAlive: false).contains("Connection: close\r\n"))
        #expect(!encode(.text(.ok, "")).contains("Connection:"))
        #expect(encode(.text(.ok, ""), version: .http1_0).contains("Connection: keep-alive\r\n"))
    }

    @Test("the largest heads fit the room the encoder makes for them, after what the output held")
    func largestHeads() {
        var response = HTTPResponse(status: .ok, body: Array(repeating: UInt8(ascii: "b"), count: 3000))
        for index in 0..<60 {
            response.headers.add("X-Field-\(index)", String(repeating: "v", count: index * 7))
        }
        response.headers.add("Server", String(repeating: "s", count: 500))  // server-owned: dropped, yet counted
        let requestID = String(repeating: "r", count: 128)
        for version in [HTTPVersion.http1_0, .http1_1] {
            var out = Array("earlier".utf8)
            HTTPResponseEncoder(serverName: String(repeating: "P", count: 300)).encode(
                response, context: .init(method: .GET, version: version, keepAlive: true, requestID: requestID),
                date: date, into: &out)
            let text = String(decoding: out, as: UTF8.self)
            #expect(text.hasPrefix("earlierHTTP/1.1 200 OK\r\n"))
            #expect(text.contains("X-Field-59: " + String(repeating: "v", count: 413) + "\r\n"))
            #expect(text.contains("Server: " + String(repeating: "P", count: 300) + "\r\n"))
            #expect(text.contains("X-Request-Id: \(requestID)\r\n"))
            #expect(text.contains("Content-Length: 3000\r\n"))
            #expect(text.hasSuffix("\r\n\r\n" + String(repeating: "b", count: 3000)))
        }
    }

    @Test("handler headers cannot override server-owned ones or split the response")
    func sanitized() {
        var response = HTTPResponse.text(.ok, "x")
        response.headers.add("Content-Length", "999")
        response.headers.add("Connection", "keep-alive")
        response.headers.add("X-Evil", "a\r\nSet-Cookie: injected=1")
        response.headers.add("Bad Name", "v")
        let text = encode(response, keepAlive: false)
        #expect(!text.contains("999"))
        #expect(!text.contains("keep-alive"))
        #expect(text.contains("X-Evil: aSet-Cookie: injected=1\r\n"))
        #expect(!text.contains("\r\nSet-Cookie"))
        #expect(!text.contains("Bad Name"))
    }

    @Test("the refusal carries the given body and always closes")
    func refusal() {
        var out: [UInt8] = []
        let body = #"{"error":"request_header_fields_too_large"}"#
        HTTPResponseEncoder().encodeRefusal(.json(.requestHeaderFieldsTooLarge, body), date: date, into: &out)
        let text = String(decoding: out, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"))
        #expect(text.contains("Content-Length: \(body.utf8.count)\r\n"))
        #expect(text.contains("Content-Type: application/json; charset=utf-8\r\n"))
        #expect(text.contains("Connection: close\r\n"))
        #expect(text.hasSuffix("\r\n\r\n" + body))
    }
}
