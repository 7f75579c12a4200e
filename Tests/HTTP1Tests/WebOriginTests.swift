import HTTP1
import Testing

@Suite("Web origins (RFC 6454)")
struct WebOriginTests {
    @Test("one origin in many spellings: case, default port, path, query, user information")
    func sameOrigin() {
        let origin = WebOrigin("https://app.example")
        #expect(origin?.description == "https://app.example")
        for spelling in [
            "HTTPS://App.Example", "https://app.example:443", "https://app.example/cb?x=1#f", "https://me@app.example/",
        ] {
            #expect(WebOrigin(spelling) == origin, "\(spelling)")
        }
        #expect(WebOrigin("http://127.0.0.1:8080/mcp")?.description == "http://127.0.0.1:8080")
        #expect(WebOrigin("http://[::1]:6274")?.description == "http://[::1]:6274")
        #expect(WebOrigin("http://[::1]")?.port == nil)
    }

    @Test("a different scheme, host or port is a different origin")
    func differentOrigins() {
        let origin = WebOrigin("https://app.example")
        let others = [
            "http://app.example", "https://app.example:8443", "https://evil.example", "https://app.example.evil",
        ]
        for other in others {
            #expect(WebOrigin(other) != origin, "\(other)")
        }
    }

    @Test("what is not an origin is nil: null, no scheme, an empty host, a bad port or scheme")
    func notOrigins() {
        for text in [
            "null", "", "app.example", "https://", "https://:443", "https://app.example:0", "https://app.example:65536",
            "https://app.example:8a", "https://a:b:c", "https://[::1", "https://[::1]x", "1https://a", "ht tp://a",
            "https://app.example:000443",
        ] {
            #expect(WebOrigin(text) == nil, "\(text)")
        }
    }
}
