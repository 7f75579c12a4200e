import Testing

@testable import HTTP1

@Suite("The header encoding memo writes what encoding the fields writes, for that very list only")
struct HTTPHeaderEncodingMemoTests {
    let date = HTTPDate.imfFixdate(unixSeconds: 784_111_777)
    let encoder = HTTPResponseEncoder(serverName: "Postern")
    let context = HTTPResponseEncoder.Context(method: .GET, version: .http1_1, keepAlive: true, requestID: "rid")

    /// Written into exactly the room it asks for, with or without the memo.
    func write(_ response: HTTPResponse, memo: HTTPHeaderEncodingMemo?) -> String {
        let most = encoder.maximumLength(response, context: context, date: date, memo: memo)
        let bytes = [UInt8](unsafeUninitializedCapacity: most) { room, count in
            count = encoder.write(response, context: context, date: date, memo: memo, into: room)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("the same list, a changed copy, an equal list and a list the encoder filters")
    func memoized() {
        let memo = HTTPHeaderEncodingMemo()
        let first = HTTPResponse.json(.ok, #"{"a":1}"#)
        var changed = first
        changed.headers.replaceOrAdd("Content-Type", "text/plain\r\nX-Injected: 1")
        let equal = HTTPResponse.json(.ok, #"{"a":1}"#)
        var filtered = first
        filtered.headers.add("Date", "yesterday")
        filtered.headers.add("Bad Name", "x")
        filtered.headers.add("Cache-Control", "no-store")
        for response in [first, first, changed, first, equal, equal, filtered, filtered, first] {
            #expect(write(response, memo: memo) == write(response, memo: nil))
        }
        #expect(write(changed, memo: memo).contains("Content-Type: text/plainX-Injected: 1\r\n"))
        #expect(!write(filtered, memo: memo).contains("yesterday") && !write(filtered, memo: memo).contains("Bad"))
    }

    @Test("a list is the memo's only while it shares its storage")
    func identity() {
        let memo = HTTPHeaderEncodingMemo()
        var headers = HTTPHeaders()
        headers.add("X-One", "1")
        _ = write(HTTPResponse(status: .ok, headers: headers), memo: memo)
        #expect(memo.encoding(of: headers) == Array("X-One: 1\r\n".utf8))
        var copy = headers
        #expect(memo.encoding(of: copy) != nil)
        copy.add("X-Two", "2")
        #expect(memo.encoding(of: copy) == nil)
        #expect(memo.encoding(of: HTTPHeaders([("X-One", "1")])) == nil)
        #expect(memo.encoding(of: HTTPHeaders()) == nil)
        var long = HTTPHeaders()
        long.add("Authorization", "Bearer " + String(repeating: "t", count: HTTPHeaderEncodingMemo.maximumLength))
        let response = HTTPResponse(status: .ok, headers: long)
        #expect(write(response, memo: memo) == write(response, memo: nil))
        #expect(memo.encoding(of: long) == nil && memo.encoding(of: headers) != nil)  // not kept: too long
    }
}
