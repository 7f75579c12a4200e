import HTTP1
import JSON
import Testing

@testable import ServerKit

@Suite("HTTPResponse.noStoreJSON: the one JSON answer of every surface")
struct NoStoreJSONTests {
    @Test("a value or serialized text: the status, the JSON content type, no-store, the body as given")
    func headersAndBody() {
        let value: JSONValue = ["error": "invalid_request", "n": 1]
        for response in [
            HTTPResponse.noStoreJSON(.badRequest, value),
            HTTPResponse.noStoreJSON(.badRequest, Array(#"{"error":"invalid_request","n":1}"#.utf8)),
        ] {
            #expect(response.status == .badRequest)
            #expect(response.headers.values("Content-Type") == ["application/json; charset=utf-8"])
            #expect(response.headers.values("Cache-Control") == ["no-store"])
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"invalid_request","n":1}"#)
        }
    }
}
