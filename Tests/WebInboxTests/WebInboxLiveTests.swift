import HTTP1
import PosternTestSupport
import ServerKit
import Testing
import WebInbox

/// The live list: its event stream (authorized as the list, woken by a delivery, capped per session and in total,
/// ended with the session or by the server) and the script that listens to it.
@Suite("Web inbox: the live list's stream and script", .serialized, .timeLimit(.minutes(1)))
struct WebInboxLiveTests {
    static let reader = "reader@mail.localhost"
    static let list = "/inbox/m/reader%40mail.localhost"

    /// A harness with the account `reader@mail.localhost`, and a browser signed in to it.
    static func signedIn(
        _ backend: StorageBackend, _ configure: (inout WebInboxConfiguration) -> Void = { _ in }
    ) async throws -> (WebInboxHarness, Browser) {
        let harness = try WebInboxHarness(backend, configure)
        try await harness.account(reader, password: "secret-one")
        let browser = try await signIn(harness, reader, "secret-one")
        return (harness, browser)
    }

    static func signIn(_ harness: WebInboxHarness, _ address: String, _ password: String) async throws -> Browser {
        let browser = harness.browser()
        let answer = try await browser.signIn(["kind": "account", "address": address, "password": password])
        try #require(answer.status == .seeOther)
        return browser
    }

    /// Opens the stream route `target` with `browser`'s cookies, as a connection would: the writer it writes to.
    static func open(
        _ harness: WebInboxHarness, _ browser: Browser?, _ target: String, lastEventID: String? = nil
    ) throws -> CollectingResponseWriter {
        var headers = HTTPHeaders()
        if let cookies = browser?.jar.cookies, !cookies.isEmpty {
            let pairs = cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            headers.add("Cookie", pairs.joined(separator: "; "))
        }
        if let lastEventID { headers.add("Last-Event-ID", lastEventID) }
        let request = HTTPRequest(
            method: .GET, target: target, version: .http1_1, headers: headers, body: [], remoteAddress: "192.0.2.9",
            requestID: "webinbox-live-test")
        guard case .found(let route, let parameters) = harness.router.match(method: .GET, path: request.path),
            case .stream(let handler) = route.handler
        else { throw NoStreamRoute(target: target) }
        let writer = CollectingResponseWriter()
        handler(request, RequestContext(request), parameters, writer)
        return writer
    }

    /// The whole answer of a stream that ends by itself (a refusal, a stream that ended); fails after 10 s instead of
    /// waiting for one that does not.
    static func answer(_ writer: CollectingResponseWriter) async throws -> HTTPResponse {
        try await waitUntil("the answer ended") { writer.hasEnded }
        try #require(writer.hasEnded)
        return await writer.response()
    }

    struct NoStreamRoute: Error {
        var target: String
    }

    /// The `data-state` the list page was rendered at.
    static func renderedState(_ browser: Browser, _ list: String = list) async throws -> String {
        let page = await browser.send(.GET, list)
        try #require(page.status == .ok)
        let text = page.text
        let start = try #require(text.range(of: "data-state=\""))
        return String(text[start.upperBound...].prefix { $0 != "\"" })
    }

    /// The `(event, id, data)` of each event in `body` (comments, such as pings, left out).
    static func events(_ body: [UInt8]) -> [(event: String, id: String?, data: String?)] {
        String(decoding: body, as: UTF8.self).components(separatedBy: "\n\n").compactMap { block in
            var event: String?, id: String?, data: String?
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
                if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
            }
            return event.map { ($0, id, data) }
        }
    }

    @Test(
        "the list names its stream and the state it shows; a delivery then wakes the parked stream with one event",
        arguments: StorageBackend.allCases)
    func eventAfterDelivery(_ backend: StorageBackend) async throws {
        let (harness, browser) = try await Self.signedIn(backend)
        try await harness.deliver(WebInboxHarness.plain(subject: "before"), to: Self.reader)
        let page = await browser.send(.GET, Self.list)
        #expect(page.text.contains("data-events=\"/inbox/m/reader%40mail.localhost/events\""))
        let state = try await Self.renderedState(browser)
        #expect(state == String(try await harness.mail.state(address: Self.reader)))
        let writer = try Self.open(harness, browser, Self.list + "/events?state=" + state)
        try await waitUntil("the stream parked") { harness.mail.changes.waiting(for: Self.reader) == 1 }
        #expect(writer.written.status == .ok)
        #expect(Self.events(writer.written.body).isEmpty, "nothing changed since the page was rendered")
        try await harness.deliver(WebInboxHarness.plain(subject: "live"), to: Self.reader)
        try await waitUntil("an event") { !Self.events(writer.written.body).isEmpty }
        let now = try await harness.mail.state(address: Self.reader)
        let events = Self.events(writer.written.body)
        #expect(events.count == 1)
        #expect(events.first?.event == "change" && events.first?.id == String(now))
        #expect(events.first?.data == "{\"state\":\(now),\"arrived\":true}")
        writer.end()
        let response = try await Self.answer(writer)
        #expect(response.headers["Content-Type"] == "text/event-stream")
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.headers["Content-Length"] == nil)
    }

    @Test(
        "a later page names its first page for the script (which offers it, not swapped rows); the first does not",
        arguments: StorageBackend.allCases)
    func laterPageNamesTheFirst(_ backend: StorageBackend) async throws {
        let (harness, browser) = try await Self.signedIn(backend) { $0.pageSize = 1 }
        for subject in ["one", "two"] {
            try await harness.deliver(WebInboxHarness.plain(subject: subject), to: Self.reader)
        }
        let first = await browser.send(.GET, Self.list + "?text=o")
        #expect(first.text.contains("data-state=") && !first.text.contains("data-first="))
        let later = await browser.send(.GET, Self.list + "?text=o&position=1")
        let firstPage = "/inbox/m/reader%40mail.localhost?folder=inbox&amp;text=o&amp;position=0"
        #expect(later.text.contains("data-first=\"\(firstPage)\""))
        #expect(later.text.contains("<span id=\"live-news\"></span></nav>"))
    }

    @Test(
        "a change that is no arrival (read on another page) refreshes without news; a reconnect's Last-Event-ID wins",
        arguments: StorageBackend.allCases)
    func changeWithoutArrival(_ backend: StorageBackend) async throws {
        let (harness, browser) = try await Self.signedIn(backend)
        let id = try await harness.deliver(WebInboxHarness.plain(subject: "to read"), to: Self.reader)
        let state = try await Self.renderedState(browser)
        // A reconnecting browser sends the last event's id; the URL's state (older) no longer counts.
        let writer = try Self.open(harness, browser, Self.list + "/events?state=0", lastEventID: state)
        try await waitUntil("the stream parked") { harness.mail.changes.waiting(for: Self.reader) == 1 }
        #expect(Self.events(writer.written.body).isEmpty)
        #expect(await browser.send(.GET, Self.list + "/" + id).status == .ok)  // opening it marks it read
        try await waitUntil("an event") { !Self.events(writer.written.body).isEmpty }
        #expect(Self.events(writer.written.body).first?.data?.hasSuffix("\"arrived\":false}") == true)
        writer.end()
    }

    @Test(
        "another's mailbox, no session and a signed-out session are the list's 404, before any stream opens",
        arguments: StorageBackend.allCases)
    func refusedAsTheList(_ backend: StorageBackend) async throws {
        let (harness, browser) = try await Self.signedIn(backend)
        try await harness.account("other@mail.localhost", password: "secret-two")
        let other = "/inbox/m/other%40mail.localhost"
        #expect(await browser.send(.GET, other).status == .notFound)
        for (who, target) in [
            ("another's mailbox", other + "/events"), ("no mailbox at all", "/inbox/m/nobody%40mail.localhost/events"),
        ] {
            let response = try await Self.answer(try Self.open(harness, browser, target))
            #expect(response.status == .notFound, "\(who)")
            #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true, "\(who)")
        }
        #expect(try await Self.answer(try Self.open(harness, nil, Self.list + "/events")).status == .notFound)
        let signedOut = harness.browser()
        signedOut.jar.cookies = browser.jar.cookies
        let page = await browser.send(.GET, Self.list)
        _ = await browser.send(.POST, "/inbox/sign-out", form: ["csrf_token": try #require(Browser.csrf(in: page))])
        #expect(try await Self.answer(try Self.open(harness, signedOut, Self.list + "/events")).status == .notFound)
        #expect(harness.service.openLiveStreams == 0)
    }

    @Test(
        "a session holds at most its cap of streams (429), the server its total (503); a closed one frees a place",
        arguments: StorageBackend.allCases)
    func limits(_ backend: StorageBackend) async throws {
        let (harness, browser) = try await Self.signedIn(backend) {
            $0.maxEventStreamsPerSession = 2
            $0.maxEventStreams = 3
        }
        let events = Self.list + "/events"
        let first = try Self.open(harness, browser, events), second = try Self.open(harness, browser, events)
        try await waitUntil("two streams open") { harness.service.openLiveStreams == 2 }
        let third = try await Self.answer(try Self.open(harness, browser, events))
        #expect(third.status == .tooManyRequests)
        #expect(harness.service.openLiveStreams == 2)
        // Another session of the same account has its own two, up to the server's three.
        let other = try await Self.signIn(harness, Self.reader, "secret-one")
        let fourth = try Self.open(harness, other, events)
        try await waitUntil("three streams open") { harness.service.openLiveStreams == 3 }
        let fifth = try await Self.answer(try Self.open(harness, other, events))
        #expect(fifth.status == .serviceUnavailable)
        #expect(fifth.headers["Retry-After"] != nil)
        // The server ends one (the client left, or it shuts down): its place is free again.
        first.end()
        try await waitUntil("the first stream closed") { harness.service.openLiveStreams == 2 }
        let again = try Self.open(harness, browser, events)
        try await waitUntil("a stream opened in its place") { harness.service.openLiveStreams == 3 }
        #expect(again.written.status == .ok)
        for writer in [second, fourth, again] { writer.end() }
        try await waitUntil("every stream closed") { harness.service.openLiveStreams == 0 }
        #expect(harness.mail.changes.waiting(for: Self.reader) == 0)
    }

    @Test(
        "a quiet stream pings, asks again at each ping, and ends once its session is signed out",
        arguments: StorageBackend.allCases)
    func pingsAndSessionEnd(_ backend: StorageBackend) async throws {
        let (harness, browser) = try await Self.signedIn(backend) { $0.pingSeconds = 1 }
        let state = try await Self.renderedState(browser)
        let writer = try Self.open(harness, browser, Self.list + "/events?state=" + state)
        try await waitUntil("a ping") { String(decoding: writer.written.body, as: UTF8.self).contains(": ping\n\n") }
        #expect(String(decoding: writer.written.body, as: UTF8.self).hasPrefix("retry: 2000\n\n"))
        #expect(Self.events(writer.written.body).isEmpty, "a ping is a comment: no event in the browser")
        let page = await browser.send(.GET, Self.list)
        _ = await browser.send(.POST, "/inbox/sign-out", form: ["csrf_token": try #require(Browser.csrf(in: page))])
        let response = try await Self.answer(writer)  // the stream finished by itself
        #expect(response.status == .ok)
        try await waitUntil("its place freed") { harness.service.openLiveStreams == 0 }
    }

    @Test(
        "an owner's stream of their agent inbox ends at the first ping after the owner session expired",
        arguments: StorageBackend.allCases)
    func ownerSessionExpires(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend) { $0.pingSeconds = 1 }
        let (browser, inbox) = try await harness.owner("ada@example.com", inbox: "ada-agent")
        let list = "/inbox/m/" + PercentEncoding.encode(inbox)
        let state = try await Self.renderedState(browser, list)
        let writer = try Self.open(harness, browser, list + "/events?state=" + state)
        try await waitUntil("the stream parked") { harness.mail.changes.waiting(for: inbox) == 1 }
        #expect(writer.written.status == .ok)
        harness.clock.advance(13 * 3600)
        let response = try await Self.answer(writer)
        #expect(response.status == .ok && Self.events(response.body).isEmpty)
        #expect(await browser.send(.GET, list).status == .seeOther, "the list too sends them to sign in")
        try await waitUntil("its place freed") { harness.service.openLiveStreams == 0 }
    }

    @Test(
        "the script is served from the binary as text/javascript, nosniff, revalidated by its ETag (304)",
        arguments: StorageBackend.allCases)
    func script(_ backend: StorageBackend) async throws {
        let (harness, browser) = try await Self.signedIn(backend)
        let list = await browser.send(.GET, Self.list)
        #expect(list.text.contains("<script src=\"/inbox/assets/live.js\" defer></script>"))
        let anyone = harness.browser()
        let script = await anyone.send(.GET, "/inbox/assets/live.js")
        #expect(script.status == .ok)
        #expect(script.headers["Content-Type"] == "text/javascript; charset=utf-8")
        #expect(script.headers["X-Content-Type-Options"] == "nosniff")
        #expect(script.headers["Cache-Control"] == "no-cache")
        let tag = try #require(script.headers["ETag"])
        #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && tag.count > 10)
        #expect(script.text.contains("new EventSource(") && script.text.contains("DOMParser"))
        #expect(!script.text.contains("http://") && !script.text.contains("https://"), "nothing from elsewhere")
        let cached = await anyone.send(.GET, "/inbox/assets/live.js", headers: [("If-None-Match", tag)])
        #expect(cached.status == .notModified && cached.body.isEmpty)
        #expect(cached.headers["ETag"] == tag)
        let stale = await anyone.send(.GET, "/inbox/assets/live.js", headers: [("If-None-Match", "\"old\"")])
        #expect(stale.status == .ok && stale.body == script.body)
    }
}
