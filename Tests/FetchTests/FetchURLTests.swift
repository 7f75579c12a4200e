import OutboundSocket
import Testing

@testable import Fetch

@Suite("FetchURL")
struct FetchURLTests {
    @Test("well-formed URLs parse into scheme, host, port and target")
    func parses() throws {
        let url = try FetchURL(parsing: "  HTTPS://User:pw@Example.COM.:8443/a/b?x=1#frag ")
        #expect(url.scheme == "https")
        #expect(url.host == .name("example.com"))
        #expect(url.port == 8443)
        #expect(url.target == "/a/b?x=1")
        #expect(url.hostHeader == "example.com:8443")
        let bare = try FetchURL(parsing: "http://example.com")
        #expect(bare.target == "/")
        #expect(bare.port == 80)
        #expect(bare.hostHeader == "example.com")
        let query = try FetchURL(parsing: "http://example.com?q")
        #expect(query.target == "/?q")
        let v6 = try FetchURL(parsing: "http://[2606:4700::1111]:81/h")
        #expect(v6.hostHeader == "[2606:4700::1111]:81")
        #expect(try FetchURL(parsing: "http://example.com/ä\"x").target == "/%C3%A4%22x")
    }

    @Test("the host after the last @ is the one vetted")
    func userinfo() throws {
        #expect(try FetchURL(parsing: "http://good.example@127.0.0.1/").host == .address(.v4(0x7f00_0001)))
        #expect(try FetchURL(parsing: "http://a@b@0x7f000001/").host == .address(.v4(0x7f00_0001)))
        #expect(try FetchURL(parsing: "http://127.0.0.1@good.example/").host == .name("good.example"))
    }

    @Test(
        "malformed or non-http URLs are invalid",
        arguments: [
            "", "   ", "example.com/hash", "/hash.txt", "ftp://example.com/h", "file:///etc/passwd",
            "javascript:alert(1)", "http:/example.com", "http://", "http:///x", "http://:80/", "http://[::1/",
            "http://[::1]x/", "http://1.2.3.4.5/", "http://256.1.1.1/", "http://exa mple.com/", "http://a\\b/",
            "http://example.com:0/", "http://example.com:65536/", "http://example.com:8a/", "http://ex%41mple.com/",
            "http://exämple.com/", "http://a..b/", "http://.a/", "http://a\tb/", "gopher://127.0.0.1/",
        ])
    func invalid(text: String) {
        #expect(throws: FetchError.invalidURL) { try FetchURL(parsing: text) }
    }

    // Found by the url fuzzer: "a.." lost one dot and kept the other, so the host was "a." (not the
    // documented dotless name; "localhost.." then slipped past the fetcher's pre-lookup localhost check).
    @Test(
        "a host with more than one trailing dot is invalid",
        arguments: ["http://a../", "http://localhost../", "http://1.2.3.4../"])
    func doubleTrailingDot(text: String) {
        #expect(throws: FetchError.invalidURL) { try FetchURL(parsing: text) }
    }

    // Found by the url fuzzer: delimiters were searched as Characters, and a delimiter followed by a
    // combining mark is one Character that equals no delimiter.
    @Test("a delimiter followed by a combining mark still delimits")
    func combiningMarks() throws {
        #expect(try FetchURL(parsing: "http://example.com/a#\u{301}b").target == "/a")
        let url = try FetchURL(parsing: "http://a.example/\u{301}@b.example/")
        #expect(url.host == .name("a.example"))
        #expect(url.target == "/%CC%81@b.example/")
        #expect(try FetchURL(parsing: "http://a.example?\u{301}").target == "/?%CC%81")
        #expect(throws: FetchError.invalidURL) { try FetchURL(parsing: "http://[\u{301}::1]/") }
        #expect(throws: FetchError.invalidURL) { try FetchURL(parsing: "http://[::1]\u{301}/") }
        let base = try FetchURL(parsing: "http://a.example/dir/x")
        #expect(try base.resolving("y#\u{301}z").target == "/dir/y")
        #expect(try base.resolving("/\u{301}").target == "/%CC%81")
        #expect(try FetchURL(parsing: " http://a.example/p\r\n").target == "/p")
    }

    @Test("Location values resolve against the current URL")
    func resolving() throws {
        let base = try FetchURL(parsing: "https://example.com:8443/dir/file?x")
        #expect(try base.resolving("/abs").description == "https://example.com:8443/abs")
        #expect(try base.resolving("rel?y").description == "https://example.com:8443/dir/rel?y")
        #expect(try base.resolving("?z").description == "https://example.com:8443/dir/file?z")
        #expect(try base.resolving("//other.example/p").description == "https://other.example/p")
        #expect(try base.resolving("http://169.254.169.254/latest").host == .address(.v4(0xa9fe_a9fe)))
        #expect(throws: FetchError.invalidURL) { try base.resolving("ftp://example.com/") }
        #expect(throws: FetchError.invalidURL) { try base.resolving("") }
    }

    // Found by the url fuzzer against inet_pton: groups went through UInt16(_:radix:), which takes a sign.
    @Test("IPv6 groups with a sign are refused", arguments: ["0::+4", "+1::", "-0::1", "1:2:3:4:5:6:7:+8", "::-1"])
    func ipv6Signed(text: String) throws {
        #expect(RemoteAddress(literal: text) == nil)
        #expect(throws: FetchError.invalidURL) { try FetchURL(parsing: "http://[\(text)]/") }
    }
}
