import Testing

@testable import HTTP1

@Suite("HTTPRequest helpers")
struct HTTPRequestHelpersTests {
    func request(_ target: String, _ headers: [(String, String)] = [], body: String = "") -> HTTPRequest {
        HTTPRequest(method: .POST, target: target, headers: HTTPHeaders(headers), body: Array(body.utf8))
    }

    @Test("path and query are split from the target")
    func pathAndQuery() {
        #expect(request("/a/b?x=1").path == "/a/b")
        #expect(request("/a/b?x=1").query == "x=1")
        #expect(request("/a/b").query == nil)
        #expect(request("/a?").query == "")
        #expect(request("http://example.com/p?q=1").path == "/p")
        #expect(request("http://example.com/p?q=1").query == "q=1")
        #expect(request("http://example.com").path == "/")
        #expect(request("*").path == "*")
    }

    @Test("query items are percent-decoded with + as space; the first wins")
    func queryItems() {
        let r = request("/?name=J%C3%BCrgen+M&x=1&x=2&flag&empty=&bad=%zz")
        #expect(r.queryItem("name") == "Jürgen M")
        #expect(r.queryItem("x") == "1")
        #expect(r.queryItem("flag") == "")
        #expect(r.queryItem("empty") == "")
        #expect(r.queryItem("bad") == "%zz")
        #expect(r.queryItem("missing") == nil)
        #expect(r.queryItems.count == 6)
    }

    @Test("cookies by name, quotes removed, across several Cookie headers")
    func cookies() {
        let r = request("/", [("Cookie", "a=1; session=\"abc\"; b=2"), ("cookie", "late=x")])
        #expect(r.cookie("session") == "abc")
        #expect(r.cookie("b") == "2")
        #expect(r.cookie("late") == "x")
        #expect(r.cookie("A") == nil)
        #expect(r.cookie("missing") == nil)
    }

    @Test("bearer token: scheme case-insensitive, nil when absent, empty or another scheme")
    func bearer() {
        #expect(request("/", [("Authorization", "Bearer abc.def")]).bearerToken == "abc.def")
        #expect(request("/", [("authorization", "bearer   tok ")]).bearerToken == "tok")
        #expect(request("/", [("Authorization", "Bearer ")]).bearerToken == nil)
        #expect(request("/", [("Authorization", "Bearer")]).bearerToken == nil)
        #expect(request("/", [("Authorization", "Basic dXNlcg==")]).bearerToken == nil)
        #expect(request("/", [("Authorization", "Bearerabc")]).bearerToken == nil)
        #expect(request("/").bearerToken == nil)
    }

    @Test("content types ignore parameters and case")
    func contentTypes() {
        #expect(request("/", [("Content-Type", "application/json; charset=utf-8")]).contentTypeIsJSON)
        #expect(request("/", [("Content-Type", "Application/JSON")]).contentTypeIsJSON)
        #expect(!request("/", [("Content-Type", "application/jsonp")]).contentTypeIsJSON)
        #expect(request("/", [("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")]).contentTypeIsForm)
        #expect(!request("/").contentTypeIsJSON)
    }

    @Test("form fields are decoded; the first value wins")
    func formFields() {
        let fields = request("/", body: "user=a%40b.c&pass=p+w&user=second&flag").formFields()
        #expect(fields["user"] == "a@b.c")
        #expect(fields["pass"] == "p w")
        #expect(fields["flag"] == "")
        #expect(fields.count == 3)
    }

    @Test("form fields are split as bytes: UTF-8 kept, escaped UTF-8 decoded, broken UTF-8 repaired, empty pairs skipped")
    func formFieldBytes() {
        let body: [UInt8] = Array("caf%C3%A9=th%C3%A9&&na\u{EF}ve=1&=v&bad=".utf8) + [0xC3] + Array("&x=%zz%4".utf8)
        let request = HTTPRequest(method: .POST, target: "/", headers: HTTPHeaders(), body: body)
        let fields = request.formFields()
        #expect(fields == ["café": "thé", "na\u{EF}ve": "1", "": "v", "bad": "\u{FFFD}", "x": "%zz%4"])
        #expect(request.formValues("x") == ["%zz%4"])
        #expect(HTTPRequest.items(ofQuery: "a=1&a=2&b").map(\.value) == ["1", "2", ""])
    }

    @Test("Accept lists application/json unless its quality is zero")
    func accepts() {
        #expect(request("/", [("Accept", "text/html, application/json;q=0.9")]).acceptsJSON)
        #expect(!request("/", [("Accept", "application/json;q=0")]).acceptsJSON)
        #expect(!request("/", [("Accept", "text/html")]).acceptsJSON)
        #expect(!request("/").acceptsJSON)
    }

    @Test("headers: case-insensitive lookup, replaceOrAdd, remove")
    func headers() {
        var headers: HTTPHeaders = ["Set-Cookie": "a=1"]
        headers.add("set-cookie", "b=2")
        headers.add("X-One", "1")
        #expect(headers.values("SET-COOKIE") == ["a=1", "b=2"])
        headers.replaceOrAdd("Set-Cookie", "c=3")
        #expect(headers.values("set-cookie") == ["c=3"])
        #expect(headers.count == 2)
        headers.remove("x-one")
        #expect(!headers.contains("X-One"))
        headers.replaceOrAdd("New", "v")
        #expect(headers["new"] == "v")
    }

    @Test("methods round-trip through their spelling")
    func methods() {
        for name in ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND"] {
            #expect(HTTPMethod(rawValue: name).rawValue == name)
        }
        #expect(HTTPMethod(rawValue: "GET") == .GET)
        #expect(HTTPMethod.other("GET") == .GET)
        #expect(HTTPMethod(rawValue: "get") != .GET)
        #expect(HTTPMethod.other("PROPFIND") == .other("PROPFIND"))
        #expect(HTTPMethod.other("PROPFIND") != .other("MKCOL"))
        #expect(HTTPMethod.other("POST") != .GET)
        // Equal methods hash alike however they were made, and a set keeps one of each spelling.
        #expect(Set<HTTPMethod>([.GET, .other("GET"), .other("PROPFIND"), .other("PROPFIND"), .POST]).count == 3)
        #expect(HTTPMethod.other("OPTIONS").standardIndex == HTTPMethod.OPTIONS.standardIndex)
        #expect(HTTPMethod.other("PROPFIND").standardIndex == nil)
    }
}
