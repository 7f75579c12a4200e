import Foundation
import PosternTestSupport
import Testing

/// A browser's steps with a `postern web link` link, for the link tests: open its page, post its one button, keep the
/// session cookie; and what those tests read off the pages.
enum WebLinkSession {
    /// Uses `link` on `server` as a browser does; returns the `postern_inbox=...` cookie of the session it opens.
    static func open(_ link: String, _ server: TestServer) async throws -> String {
        let client = try server.client()
        let path = String(link[try #require(link.range(of: "/inbox/link/")).lowerBound...])
        let token = String(path.dropFirst("/inbox/link/".count))
        let page = try await client.request("GET", path)
        let preCookie = try #require(page.header("Set-Cookie")?.split(separator: ";").first.map { String($0) })
        let csrf = try #require(Self.csrf(page.text))
        let used = try await post(client, "/inbox/link", "csrf_token=\(csrf)&token=\(token)", cookie: preCookie)
        #expect(used.status == 303)
        let session = try #require(
            used.headers.first { $0.0.lowercased() == "set-cookie" && $0.1.hasPrefix("postern_inbox=") }?.1)
        return String(session.split(separator: ";")[0])
    }

    /// Posts the urlencoded `form` to `path` with `cookie`, as a browser's form post.
    static func post(_ client: TestHTTPClient, _ path: String, _ form: String, cookie: String) async throws
        -> TestResponse
    {
        try await client.request(
            "POST", path, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", cookie)],
            body: Array(form.utf8))
    }

    /// The hidden CSRF field's value on a page.
    static func csrf(_ html: String) -> String? {
        guard let start = html.range(of: "name=\"csrf_token\" value=\"")?.upperBound else { return nil }
        return String(html[start...].prefix { $0 != "\"" })
    }

    /// The id of the first message a list page links to (`/inbox/m/{mailbox}/{id}`).
    static func firstMessageID(_ html: String) -> String? {
        guard let link = html.range(of: "class=\"message-link\" href=\"") else { return nil }
        let href = html[link.upperBound...].prefix { $0 != "\"" }
        return href.split(separator: "/").last.map(String.init)
    }
}
