import PosternTestSupport
import Testing

@testable import PosternApp

/// A browser that asks for a page that is not there (an unknown path, a closed sign-up) gets a page; an API client gets
/// the JSON it always did (issue 68). And the sign-in page's links carry all of `next` (issue 67).
@Suite("Unknown pages answer HTML to a browser, JSON to an API client")
struct PageNotFoundTests {
    static let browserAccept = ("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")

    @Test("an unknown page and a closed sign-up: HTML 404 for a browser, the JSON shape for the rest", arguments: StorageBackend.allCases)
    func notFoundByAccept(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.owners.signUpOpen = false }
        defer { Task { await server.stop() } }
        let client = try server.client()

        for path in ["/no/such/page", "/owner/sign-up"] {
            let page = try await client.request("GET", path, headers: [Self.browserAccept])
            #expect(page.status == 404, "\(path)")
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true, "\(path)")
            #expect(page.text.contains("<title>Not found · Postern</title>"), "\(path)")
            #expect(page.text.contains("id=\"error\""), "\(path)")
            #expect(page.header("Content-Security-Policy")?.isEmpty == false, "\(path)")

            let api = try await client.request("GET", path, headers: [("Accept", "application/json")])
            #expect(api.status == 404)
            #expect(try api.json()["error"] as? String == "not_found")
            let bare = try await client.request("GET", path)
            #expect(try bare.json()["error"] as? String == "not_found")
        }
        // A path an API owns keeps that API's documented error shape, whatever the client accepts.
        let agent = try await client.request("GET", "/api/v1/no-such-thing", headers: [Self.browserAccept])
        #expect(agent.status == 404)
        #expect(agent.header("Content-Type")?.hasPrefix("application/") == true)
        // Only a browser's GET: a POST to an unknown path is still the JSON 404.
        let post = try await client.request("POST", "/no/such/page", headers: [Self.browserAccept])
        #expect(try post.json()["error"] as? String == "not_found")
    }

    @Test("the sign-in page's sign-up link carries all of next, not only its first parameter", arguments: StorageBackend.allCases)
    func signUpLinkKeepsNext(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.owners.signUpOpen = true }
        defer { Task { await server.stop() } }
        let client = try server.client()
        // next = /oauth/authorize?client_id=a&state=b
        let page = try await client.request(
            "GET", "/owner/sign-in?next=%2Foauth%2Fauthorize%3Fclient_id%3Da%26state%3Db", headers: [Self.browserAccept])
        #expect(page.status == 200)
        #expect(page.text.contains("href=\"/owner/sign-up?next=%2Foauth%2Fauthorize%3Fclient_id%3Da%26state%3Db\""))
    }
}
