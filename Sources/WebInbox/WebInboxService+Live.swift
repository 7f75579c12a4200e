import AuthCrypto
import HTTP1
import MailStore
import ServerKit

/// The live list: `GET /inbox/m/{mailbox}/events`, a `text/event-stream` that says when the mailbox changed, and
/// `GET /inbox/assets/live.js`, the script that listens to it (``WebInboxLiveScript``).
///
/// One mechanism serves every kind of mailbox: agent inboxes, Mail.td accounts and the Pro sandbox all keep their mail
/// in the one mail store, whose writes (SMTP delivery, the sandbox's captures, JMAP, the Mail.td API, these pages; on
/// PostgreSQL other instances' through `postern_mail`) are announced on its change stream (``MailChanges``), the
/// same the JMAP event source parks on. The stream is authorized as the list is (the same 404), asks again at every
/// ping and before every event whether its session may still read the mailbox, ends when it may not, and ends with
/// the connection when the server shuts down.
extension WebInboxService {
    /// Adds the routes. Before `/inbox/m/{mailbox}/{id}`, so that `events` is never taken for a message id.
    func registerLive(into router: inout ContextRouter) {
        router.add(
            .GET, WebInboxLiveScript.path, .immediate { request, _, _ in WebInboxLiveScript.script.response(to: request) })
        router.add(
            .GET, "/inbox/m/{mailbox}/events",
            pages.limitedStream { [self] request, _, parameters, writer in
                try await liveEvents(request, mailbox: parameters["mailbox"] ?? "", writer)
            })
    }

    /// The stream of `mailbox`'s changes for the viewer of `request`: 404 when they may not read it (or nobody signed
    /// in), 429 past the session's cap, 503 past the total; then a `change` event whenever the mailbox's state differs
    /// from the one the page was rendered at (`state`, or `Last-Event-ID` when the browser reconnects), with the state
    /// as its id and `{"state":N,"arrived":true|false}` (whether a message arrived in the inbox), and a comment ping
    /// every ``WebInboxConfiguration/pingSeconds`` of quiet.
    /// - Throws: storage errors before the stream opened (the browser pages' error page); after it, the stream ends and the
    ///   error is thrown for the log.
    func liveEvents(_ request: HTTPRequest, mailbox named: String, _ writer: any HTTPResponseWriter) async throws {
        guard let reader = try await viewer(of: request), let mailbox = try await reader.readable(named, in: mail)
        else {
            return writer.respond(WebInboxPage.notFound())
        }
        let lease: EventStreamLimiter<String>.Lease
        do {
            lease = try liveStreams.open(for: reader.session)
        } catch EventStreamLimiter<String>.Refusal.tooManyForKey {
            return writer.respond(
                WebInboxPage.message(
                    .tooManyRequests, "Too many live lists",
                    "This session has too many lists open live. Close one, or reload this one."))
        } catch {
            var response = WebInboxPage.message(
                .serviceUnavailable, "Too many live lists", "The server has too many lists open live. Reload later.")
            response.headers.setRetryAfter(seconds: configuration.pingSeconds)
            return writer.respond(response)
        }
        onLiveStream(true)
        defer {
            lease.release()
            onLiveStream(false)
        }
        let known = Int64(request.headers["Last-Event-ID"] ?? "") ?? Int64(request.queryItem("state") ?? "")
        writer.open(
            HTTPResponse(
                status: .ok,
                headers: [
                    "Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no",
                    "X-Content-Type-Options": "nosniff",
                ],
                body: WebInboxLiveEvent.retry))
        do {
            try await pushLive(request, mailbox, from: known, writer)
            writer.finish()
        } catch is CancellationError {
            writer.finish()
        } catch {
            writer.finish()
            throw error
        }
    }

    /// Writes events and pings until the stream ends, the task is cancelled, or the viewer may no longer read
    /// `mailbox` (the mailbox's change stream asks before each element).
    private func pushLive(
        _ request: HTTPRequest, _ mailbox: String, from known: Int64?, _ writer: any HTTPResponseWriter
    ) async throws {
        let stream = mail.changeStream(of: mailbox, from: known, quiet: .seconds(configuration.pingSeconds)) {
            [self] in try await mayRead(request, mailbox)
        }
        for try await event in stream {
            guard !writer.hasEnded else { return }
            switch event {
            case .changed(let change):
                writer.write(WebInboxLiveEvent.change(state: change.state, arrived: !change.arrivals.isEmpty))
            case .quiet:
                writer.write(WebInboxLiveEvent.ping)
            case .woken:
                continue
            }
        }
    }

    /// Whether the session of `request` may still read `mailbox` (signed out, expired, the account deleted, the Pro
    /// user suspended, the inbox given away: no).
    private func mayRead(_ request: HTTPRequest, _ mailbox: String) async throws -> Bool {
        guard let reader = try await viewer(of: request) else { return false }
        return try await reader.readable(mailbox, in: mail) == mailbox
    }
}

/// The live list's `text/event-stream` lines, as bytes.
enum WebInboxLiveEvent {
    /// The stream's first bytes: a browser that loses it reconnects after 2 s.
    static let retry = Array("retry: 2000\n\n".utf8)

    /// A `change` event: the state as its id (what a reconnecting browser sends back as `Last-Event-ID`).
    static func change(state: Int64, arrived: Bool) -> [UInt8] {
        Array("event: change\nid: \(state)\ndata: {\"state\":\(state),\"arrived\":\(arrived)}\n\n".utf8)
    }

    /// A comment: keeps proxies from closing a quiet stream, and fires nothing in the browser.
    static let ping = Array(": ping\n\n".utf8)
}
