import HTMLSanitizing
import HTTP1
import MailStore
import ServerKit

/// `/view/{ID}.html` and `/view/{ID}.txt` (`server/server.go`'s `viewHandler`).
extension MailpitAPI {
    /// `GET /view/{ID}.txt`: the text body as `text/plain`, inert as received bytes are (``ReceivedBytes``);
    /// `GET /view/{ID}.html`: the HTML body, sanitized, as
    /// `text/html` under a policy that runs nothing and loads nothing from elsewhere. Anything else: 404.
    func view(_ call: MailpitCall) async throws -> HTTPResponse {
        let file = call.parameter("file")
        let html = file.hasSuffix(".html")
        guard html || file.hasSuffix(".txt") else { throw MailpitRefusal.notFound }
        let id = String(file.dropLast(html ? 5 : 4))
        let resolved = try await messageID(
            MailpitCall(request: call.request, parameters: .init([("id", id)]), viewer: call.viewer))
        guard let record = try await mail.record(in: call.scope, id: resolved) else { throw MailpitRefusal.notFound }
        guard html else {
            return ReceivedBytes.response(Array((record.textBody ?? "").utf8), contentType: "text/plain", .sourceText)
        }
        guard let body = record.htmlBody else { throw MailpitRefusal.notFound }
        return HTTPResponse(
            status: .ok,
            headers: [
                "Content-Type": "text/html; charset=utf-8",
                "Content-Security-Policy": "default-src 'none'; img-src cid: data:; style-src 'unsafe-inline'; sandbox",
                "X-Content-Type-Options": "nosniff",
            ],
            body: Array(HTMLPartSanitizer.sanitize(body).utf8))
    }
}
