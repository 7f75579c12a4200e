import AuthCrypto
import JSON
import HTTP1
import MIME
import MetricsTestKit
import MailDelivery
import MailStore
import MailSandbox
import PosternTestSupport
import ServerKit
import ServiceLifecycle
import Storage
import Synchronization
import Testing
import Time
import Webhooks

@testable import MailboxAccounts

/// Mail.td Pro webhooks: the five endpoints, the durable queue (claim, lease, retry schedule on an injected clock) and
/// the signature, on each backend.
@Suite("Mail.td Pro webhooks", .timeLimit(.minutes(1)))
struct MailboxWebhookTests {
    /// A transport that records each POST and answers with the next scripted status (200 when the script is empty).
    final class RecordingTransport: WebhookTransport {
        struct Sent: Sendable {
            var url: String
            var headers: [(String, String)]
            var body: [UInt8]
            func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
        }
        let sent = Mutex<[Sent]>([])
        let script: Mutex<[Int?]>

        init(_ script: [Int?] = []) { self.script = Mutex(script) }

        func post(_ url: String, headers: [(String, String)], body: [UInt8]) async -> WebhookAttemptResult {
            sent.withLock { $0.append(Sent(url: url, headers: headers, body: body)) }
            let status = script.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
            guard let status else { return WebhookAttemptResult(statusCode: nil, error: "timeout", durationMS: 5) }
            return WebhookAttemptResult(
                statusCode: status, error: (200...299).contains(status) ? nil : "HTTP \(status)", durationMS: 3)
        }
    }

    /// A Pro user with one account and a webhook on it.
    struct Setup {
        let harness: MailboxHarness
        let token: String
        let accountID: String
        let webhook: TestResponse
        var webhookID: String { webhook.string("id") }
        /// The queue on the harness's clock, in milliseconds, with the given retry delays.
        func queue(_ delays: [Int] = [30, 120]) -> WebhookQueue {
            WebhookQueue(database: harness.database, retryDelaySeconds: delays, leaseMilliseconds: 30_000)
        }
        var nowMS: Int64 { harness.clock.seconds * 1000 }
    }

    static func setup(_ backend: StorageBackend, url: String = "https://hooks.example.com/in") async throws -> Setup {
        let harness = try MailboxHarness(backend)
        let token = try await harness.proToken(email: "hooks@example.com")
        let accountID = try await harness.createProAccount("owned@pro.localhost", bearer: token)
        let webhook = await harness.send(.POST, "/api/user/webhooks", json: #"{"url":"\#(url)"}"#, bearer: token)
        try #require(webhook.status == 201)
        return Setup(harness: harness, token: token, accountID: accountID, webhook: webhook)
    }

    static func raw(to address: String, subject: String) -> [UInt8] {
        Array(
            "From: Example Sender <sender@example.net>\r\nTo: \(address)\r\nSubject: \(subject)\r\n\r\nClick the link.\r\n"
                .utf8)
    }

    /// Delivers a message to `address` as SMTP and `postern mail deliver` do (the directory resolves the recipient
    /// and names its holder; the delivery's transaction queues the event); returns its id. For another folder than
    /// the inbox, stores it there under the holder the directory names (as no delivery does, but JMAP may).
    @discardableResult
    static func deliver(
        _ harness: MailboxHarness, to address: String, folder: MailFolder = .inbox, subject: String = "Hello"
    ) async throws -> String {
        let raw = raw(to: address, subject: subject)
        guard folder == .inbox else {
            guard case .local(let recipient) = try await harness.delivery.resolve(address) else {
                throw MailboxError.notFound
            }
            let message = NewMailMessage(try MIMEParser.parse(raw), envelopeFrom: "bounce@example.net", raw: raw)
            let holder = recipient.holderID.map { MailHolder(ownerID: $0, accountID: recipient.accountID) }
            return try await harness.service.mail.deliver(
                message, to: [MailStore.Recipient(address: address, quota: 1 << 30, holder: holder)], folder: folder,
                now: harness.clock.seconds)[0]
        }
        return try await harness.delivery.store(
            MailEnvelope(mailFrom: "bounce@example.net", recipients: [address]), data: raw)
    }

    @Test("signature: sha256= and the hex HMAC-SHA256 of timestamp.body, keyed with the whole secret")
    func signatureKnownAnswer() {
        // Python: hmac.new(b'whsec_test', b'1736937000.{"id":"evt_1"}', hashlib.sha256).hexdigest()
        let header = WebhookSignature.header(
            secret: "whsec_test", timestamp: 1_736_937_000, body: Array(#"{"id":"evt_1"}"#.utf8))
        #expect(header == "sha256=9e15827f3035c814a33c4de88166ae80a41c4780957cbf8cc5a5d9b6cdd75203")
    }

    @Test(
        "create: 201 with a whsec_ secret shown once; list without it; a second webhook is 403",
        arguments: StorageBackend.allCases)
    func create(_ backend: StorageBackend) async throws {
        let setup = try await Self.setup(backend)
        let created = setup.webhook
        #expect(created.string("secret").hasPrefix("whsec_") && created.string("secret").count == 70)
        #expect(created["events"] == .array(["email.received"]))
        #expect(created["status"] == "active" && created["failure_count"] == .int(0))
        #expect(created["last_triggered_at"] == .null)
        #expect(MailboxIdentifiers.isUUID(setup.webhookID))
        let list = await setup.harness.send(.GET, "/api/user/webhooks", bearer: setup.token)
        let listed = try #require(list["webhooks"]?.arrayValue)
        #expect(listed.count == 1 && listed[0]["id"] == created["id"] && listed[0]["secret"] == nil)
        let second = await setup.harness.send(
            .POST, "/api/user/webhooks", json: #"{"url":"https://other.example.com/"}"#, bearer: setup.token)
        #expect(second.status == 403 && second.error == "webhook_limit_reached")
    }

    @Test(
        "create refuses: plain http, private and loopback literals, localhost, bad events; events [] and null default",
        arguments: StorageBackend.allCases)
    func createRefusals(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let token = try await harness.proToken(email: "refuse@example.com")
        for url in [
            "http://hooks.example.com/", "https://127.0.0.1/", "https://10.0.0.8/x", "https://[::1]/",
            "https://169.254.169.254/", "https://localhost:8443/", "ftp://example.com/", "not a url",
        ] {
            let response = await harness.send(.POST, "/api/user/webhooks", json: #"{"url":"\#(url)"}"#, bearer: token)
            #expect(response.status == 400 && response.error == "invalid_url", "\(url)")
        }
        for body in [#"{}"#, #"{"url":5}"#] {
            #expect(await harness.send(.POST, "/api/user/webhooks", json: body, bearer: token).error == "invalid_url")
        }
        for events in [#"["email.sent"]"#, #""email.received""#, #"[1]"#] {
            let response = await harness.send(
                .POST, "/api/user/webhooks", json: #"{"url":"https://a.example.com/","events":\#(events)}"#,
                bearer: token)
            #expect(response.status == 400 && response.error == "invalid_events", "\(events)")
        }
        let empty = await harness.send(
            .POST, "/api/user/webhooks", json: #"{"url":"https://a.example.com/","events":[]}"#, bearer: token)
        #expect(empty.status == 201 && empty["events"] == .array(["email.received"]))
        #expect(await harness.send(.GET, "/api/user/webhooks").status == 401)
    }

    @Test(
        "create refuses a URL with user info or a fragment: 400 invalid_url, nothing stored",
        arguments: StorageBackend.allCases)
    func userInfoAndFragmentRefused(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let token = try await harness.proToken(email: "userinfo@example.com")
        for url in [
            "https://user:secret@hooks.example.com/in", "https://user@hooks.example.com/",
            "https://@hooks.example.com/", "https://evil.example@hooks.example.com/",
            "https://hooks.example.com/in#frag", "https://hooks.example.com#", "https://hooks.example.com/in?a=1#x",
        ] {
            let response = await harness.send(.POST, "/api/user/webhooks", json: #"{"url":"\#(url)"}"#, bearer: token)
            #expect(response.status == 400 && response.error == "invalid_url", "\(url)")
        }
        let listed = await harness.send(.GET, "/api/user/webhooks", bearer: token)
        #expect(listed["webhooks"] == .array([]))
        // An @ in the path or query is no user info.
        let plain = await harness.send(
            .POST, "/api/user/webhooks", json: #"{"url":"https://hooks.example.com/in/a@b?to=c@d"}"#, bearer: token)
        #expect(plain.status == 201)
    }

    @Test(
        "a free account, another user's id, unknown ids: 401 and 404 on every webhook route",
        arguments: StorageBackend.allCases)
    func access(_ backend: StorageBackend) async throws {
        let setup = try await Self.setup(backend)
        let other = try await setup.harness.proToken(email: "other@example.com")
        let id = setup.webhookID
        let routes: [(HTTPMethod, String)] = [
            (.DELETE, "/api/user/webhooks/\(id)"), (.POST, "/api/user/webhooks/\(id)/rotate"),
            (.GET, "/api/user/webhooks/\(id)/deliveries"), (.GET, "/api/user/webhooks/not-a-uuid/deliveries"),
        ]
        for (method, path) in routes {
            let response = await setup.harness.send(method, path, bearer: other)
            #expect(response.status == 404 && response.error == "not_found", "\(path)")
        }
        #expect(await setup.harness.send(.GET, "/api/user/webhooks", bearer: other)["webhooks"] == .array([]))
        #expect(await setup.harness.send(.DELETE, "/api/user/webhooks/\(id)").status == 401)
    }

    @Test(
        "every inbox message of the user's accounts queues one event; free, sent and other users' mail do not",
        arguments: StorageBackend.allCases)
    func enqueue(_ backend: StorageBackend) async throws {
        let setup = try await Self.setup(backend)
        let harness = setup.harness
        _ = try await harness.createAccount("free@mail.localhost")
        let messageID = try await Self.deliver(harness, to: "owned@pro.localhost")
        try await Self.deliver(harness, to: "owned@pro.localhost", folder: .sent)
        try await Self.deliver(harness, to: "free@mail.localhost")
        let queue = setup.queue()
        #expect(try await queue.depth() == 1)
        let jobs = try await queue.claim(now: setup.nowMS, limit: 10)
        let job = try #require(jobs.first)
        #expect(jobs.count == 1)
        #expect(job.eventID == "evt_" + messageID && job.accountID == setup.accountID && job.attempts == 0)
        #expect(job.url == "https://hooks.example.com/in" && job.secret == setup.webhook.string("secret"))
    }

    @Test(
        "mail stored without a holder queues nothing: the event comes from the delivery, not a trigger on the table",
        arguments: StorageBackend.allCases)
    func noTrigger(_ backend: StorageBackend) async throws {
        let setup = try await Self.setup(backend)
        let harness = setup.harness
        let raw = Self.raw(to: "owned@pro.localhost", subject: "direct")
        let message = NewMailMessage(try MIMEParser.parse(raw), envelopeFrom: "bounce@example.net", raw: raw)
        _ = try await harness.service.mail.deliver(
            message, to: [MailStore.Recipient(address: "owned@pro.localhost", quota: 1 << 30)], folder: .inbox,
            now: harness.clock.seconds)
        #expect(try await setup.queue().depth() == 0)
        try await Self.deliver(harness, to: "owned@pro.localhost")
        #expect(try await setup.queue().depth() == 1)
    }

    @Test(
        "the event is written in the delivery's transaction: a delivery refused for a quota leaves none",
        arguments: StorageBackend.allCases)
    func refusedDeliveryQueuesNothing(_ backend: StorageBackend) async throws {
        let setup = try await Self.setup(backend)
        let harness = setup.harness
        let raw = Self.raw(to: "owned@pro.localhost", subject: "refused")
        let message = NewMailMessage(try MIMEParser.parse(raw), envelopeFrom: "bounce@example.net", raw: raw)
        let owner = await harness.send(.GET, "/api/user/me", bearer: setup.token).string("id")
        let holder = MailHolder(ownerID: owner, accountID: setup.accountID)
        await #expect(throws: MailStoreError.self) {
            try await harness.service.mail.deliver(
                message,
                to: [
                    MailStore.Recipient(address: "owned@pro.localhost", quota: 1 << 30, holder: holder),
                    MailStore.Recipient(address: "full@pro.localhost", quota: 1, holder: holder),
                ], folder: .inbox, now: harness.clock.seconds)
        }
        #expect(try await setup.queue().depth() == 0)
        #expect(try await harness.service.mail.used(address: "owned@pro.localhost") == 0)
    }

    @Test(
        "catch-all mail on the user's verified domain queues an event without an account id",
        arguments: StorageBackend.allCases)
    func catchAll(_ backend: StorageBackend) async throws {
        let setup = try await Self.setup(backend)
        let harness = setup.harness
        let owner = try #require(try await harness.service.store.proUser(email: "hooks@example.com"))
        _ = try await harness.database.write { connection in
            try connection.run(
                """
                INSERT INTO custom_domain_claims (id, pro_user_id, domain, verify_token, verified_at, mx_configured,
                    created_at) VALUES ('d1', ?, 'custom.example', 't', 1, 0, 1)
                """, [.text(owner.id)])
        }
        let messageID = try await Self.deliver(harness, to: "anyone@custom.example")
        let job = try #require(try await setup.queue().claim(now: setup.nowMS, limit: 10).first)
        #expect(job.messageID == messageID && job.accountID == nil && job.address == "anyone@custom.example")
    }

    @Test(
        "a sandbox capture queues an event naming the sandbox's account and address",
        arguments: StorageBackend.allCases)
    func sandboxCapture(_ backend: StorageBackend) async throws {
        let setup = try await Self.setup(backend)
        let harness = setup.harness
        let owner = try #require(try await harness.service.store.proUser(email: "hooks@example.com"))
        let raw = Array("From: app@example.net\r\nTo: someone@example.org\r\nSubject: Welcome\r\n\r\nHi.\r\n".utf8)
        let messageID = try await harness.sandbox.captureInSandbox(
            owner: owner.id, mailFrom: "app@example.net", recipients: ["someone@example.org"], clientIP: "127.0.0.1",
            raw: raw, authResults: nil)
        let info = await harness.send(.GET, "/api/user/sandbox", bearer: setup.token)
        let job = try #require(try await setup.queue().claim(now: setup.nowMS, limit: 10).first)
        #expect(job.messageID == messageID && job.address == info.string("address"))
        #expect(job.accountID == info.string("account_id") && job.accountID != nil)
        #expect(job.url == "https://hooks.example.com/in")
    }

    @Test(
        "a claim leases: nobody else gets the row until the lease runs out; the late completion records nothing",
        arguments: StorageBackend.allCases)
    func lease(_ backend: StorageBackend) async throws {
        let setup = try await Self.setup(backend)
        try await Self.deliver(setup.harness, to: "owned@pro.localhost")
        let queue = setup.queue()
        let now = setup.nowMS
        let first = try #require(try await queue.claim(now: now, limit: 10).first)
        #expect(try await queue.claim(now: now + 29_999, limit: 10).isEmpty)
        let second = try #require(try await queue.claim(now: now + 30_000, limit: 10).first)
        #expect(second.eventID == first.eventID && second.leaseToken != first.leaseToken)
        let ok = WebhookAttemptResult(statusCode: 200, error: nil, durationMS: 1)
        #expect(try await queue.complete(first, result: ok, now: now + 30_001) == .leaseLost)
        #expect(try await queue.complete(second, result: ok, now: now + 30_002) == .delivered)
        #expect(try await queue.depth() == 0)
        let log = await setup.harness.send(
            .GET, "/api/user/webhooks/\(setup.webhookID)/deliveries", bearer: setup.token)
        #expect(log["deliveries"]?.arrayValue?.count == 1)
    }

    @Test(
        "retries follow the delays; after the last the webhook is failed and takes no events until rotated",
        arguments: StorageBackend.allCases)
    func retrySchedule(_ backend: StorageBackend) async throws {
        let setup = try await Self.setup(backend)
        let harness = setup.harness
        try await Self.deliver(harness, to: "owned@pro.localhost")
        let queue = setup.queue([30, 120])
        let failure = WebhookAttemptResult(statusCode: 500, error: "HTTP 500", durationMS: 2)
        var now = setup.nowMS
        var job = try #require(try await queue.claim(now: now, limit: 10).first)
        #expect(try await queue.complete(job, result: failure, now: now) == .retryAt(now + 30_000))
        #expect(try await queue.nextDue() == now + 30_000)
        #expect(try await queue.claim(now: now + 29_999, limit: 10).isEmpty)
        now += 30_000
        job = try #require(try await queue.claim(now: now, limit: 10).first)
        #expect(job.attempts == 1)
        #expect(try await queue.complete(job, result: failure, now: now) == .retryAt(now + 120_000))
        let webhook = await harness.send(.GET, "/api/user/webhooks", bearer: setup.token)["webhooks"]?.arrayValue?.first
        #expect(webhook?["failure_count"] == .int(2) && webhook?["status"] == "active")
        now += 120_000
        job = try #require(try await queue.claim(now: now, limit: 10).first)
        #expect(job.attempts == 2)
        #expect(try await queue.complete(job, result: failure, now: now) == .exhausted)
        let failed = await harness.send(.GET, "/api/user/webhooks", bearer: setup.token)["webhooks"]?.arrayValue?.first
        #expect(failed?["status"] == "failed" && failed?["failure_count"] == .int(3))
        #expect(failed?["last_triggered_at"] == .string(RFC3339.format(now / 1000)))
        try await Self.deliver(harness, to: "owned@pro.localhost")
        #expect(try await queue.depth() == 0)

        let rotated = await harness.send(.POST, "/api/user/webhooks/\(setup.webhookID)/rotate", bearer: setup.token)
        #expect(rotated.status == 200 && rotated["id"] == setup.webhook["id"])
        #expect(rotated.string("secret").hasPrefix("whsec_") && rotated["secret"] != setup.webhook["secret"])
        #expect(rotated["status"] == "active" && rotated["failure_count"] == .int(0))
        try await Self.deliver(harness, to: "owned@pro.localhost")
        let next = try #require(try await queue.claim(now: now, limit: 10).first)
        #expect(next.secret == rotated.string("secret"))

        let log = await harness.send(.GET, "/api/user/webhooks/\(setup.webhookID)/deliveries", bearer: setup.token)
        let attempts = try #require(log["deliveries"]?.arrayValue)
        #expect(attempts.map { $0["attempt"] } == [.int(3), .int(2), .int(1)])
        #expect(attempts.allSatisfy { $0["status_code"] == .int(500) && $0["error"] == "HTTP 500" })
        #expect(attempts.allSatisfy { $0["event_type"] == "email.received" && $0["duration_ms"] == .int(2) })
    }

    @Test(
        "a failure signed with a secret rotated meanwhile is sent again at once, not counted against the webhook",
        arguments: StorageBackend.allCases)
    func rotatedInFlight(_ backend: StorageBackend) async throws {
        let setup = try await Self.setup(backend)
        try await Self.deliver(setup.harness, to: "owned@pro.localhost")
        let queue = setup.queue([30])
        let now = setup.nowMS
        // The last attempt is in flight, signed with the old secret, when the owner rotates.
        let first = try #require(try await queue.claim(now: now, limit: 10).first)
        let failure = WebhookAttemptResult(statusCode: 500, error: "HTTP 500", durationMS: 2)
        #expect(try await queue.complete(first, result: failure, now: now) == .retryAt(now + 30_000))
        let last = try #require(try await queue.claim(now: now + 30_000, limit: 10).first)
        let rotated = await setup.harness.send(
            .POST, "/api/user/webhooks/\(setup.webhookID)/rotate", bearer: setup.token)
        let refused = WebhookAttemptResult(statusCode: 401, error: "HTTP 401", durationMS: 2)
        #expect(try await queue.complete(last, result: refused, now: now + 30_001) == .retryAt(now + 30_001))
        let webhook = await setup.harness.send(.GET, "/api/user/webhooks", bearer: setup.token)["webhooks"]?
            .arrayValue?.first
        #expect(webhook?["status"] == "active" && webhook?["failure_count"] == .int(0))
        let again = try #require(try await queue.claim(now: now + 30_001, limit: 10).first)
        #expect(again.eventID == last.eventID && again.attempts == 1 && again.secret == rotated.string("secret"))
    }

    @Test("the delivery log keeps the newest 20 attempts", arguments: StorageBackend.allCases)
    func logBound(_ backend: StorageBackend) async throws {
        let setup = try await Self.setup(backend)
        let queue = setup.queue()
        for index in 0..<22 {
            try await Self.deliver(setup.harness, to: "owned@pro.localhost", subject: "n\(index)")
            let job = try #require(try await queue.claim(now: setup.nowMS + Int64(index), limit: 1).first)
            try await queue.complete(
                job, result: WebhookAttemptResult(statusCode: 204, error: nil, durationMS: 1),
                now: setup.nowMS + Int64(index))
        }
        let log = await setup.harness.send(
            .GET, "/api/user/webhooks/\(setup.webhookID)/deliveries", bearer: setup.token)
        #expect(log["deliveries"]?.arrayValue?.count == 20)
    }

    @Test("delete: 204, queued events go, nothing more is queued; 404 after", arguments: StorageBackend.allCases)
    func delete(_ backend: StorageBackend) async throws {
        let setup = try await Self.setup(backend)
        try await Self.deliver(setup.harness, to: "owned@pro.localhost")
        let path = "/api/user/webhooks/\(setup.webhookID)"
        #expect(await setup.harness.send(.DELETE, path, bearer: setup.token).status == 204)
        try await Self.deliver(setup.harness, to: "owned@pro.localhost")
        #expect(try await setup.queue().depth() == 0)
        #expect(await setup.harness.send(.DELETE, path, bearer: setup.token).status == 404)
        #expect(await setup.harness.send(.POST, path + "/rotate", bearer: setup.token).status == 404)
    }

    @Test(
        "dispatcher: signed POST with the event id, a fresh timestamp, the payload; a 500 is retried when due",
        arguments: StorageBackend.allCases)
    func dispatcher(_ backend: StorageBackend) async throws {
        let setup = try await Self.setup(backend)
        let messageID = try await Self.deliver(setup.harness, to: "owned@pro.localhost", subject: "Verify")
        let transport = RecordingTransport([500])
        let clock = setup.harness.clock
        let dispatcher = WebhookDispatcher(
            queue: setup.queue([30]), transport: transport, changes: setup.harness.service.mail.changes,
            clock: { clock.nanoseconds / 1_000_000 }, logger: .init(label: "webhook-tests"),
            metricsFactory: setup.harness.metrics)
        #expect(try await dispatcher.runOnce() == 1)
        let depth = try setup.harness.metrics.expectGauge("postern_webhook_queue_depth")
        #expect(depth.lastValue == 1)
        #expect(try await dispatcher.runOnce() == 0)
        clock.advance(seconds: 30)
        #expect(try await dispatcher.runOnce() == 1)
        #expect(depth.lastValue == 0)
        let sent = transport.sent.withLock { $0 }
        try #require(sent.count == 2)
        let secret = setup.webhook.string("secret")
        for request in sent {
            let timestamp = try #require(request.header("X-Webhook-Timestamp").flatMap { Int64($0) })
            #expect(request.header("X-Webhook-ID") == "evt_" + messageID)
            #expect(request.header("Content-Type") == "application/json")
            #expect(
                request.header("X-Webhook-Signature")
                    == WebhookSignature.header(secret: secret, timestamp: timestamp, body: request.body))
            #expect(request.url == "https://hooks.example.com/in")
        }
        #expect(sent[0].body == sent[1].body)
        #expect(sent[1].header("X-Webhook-Timestamp") == String(clock.seconds))
        let payload = try JSONValue.parse(sent[0].body)
        #expect(payload["id"] == .string("evt_" + messageID) && payload["type"] == "email.received")
        let data = payload["data"]
        #expect(data?["email_id"] == .string(messageID) && data?["account_id"] == .string(setup.accountID))
        #expect(data?["address"] == "owned@pro.localhost" && data?["subject"] == "Verify")
        #expect(data?["from"] == "Example Sender <sender@example.net>" && data?["sender"] == "sender@example.net")
        #expect(data?["preview_text"]?.stringValue?.hasPrefix("Click the link") == true)
        #expect(data?["size"]?.intValue ?? 0 > 0)
        #expect(try await setup.queue().depth() == 0)
        let metrics = setup.harness.metrics
        #expect(try metrics.expectCounter("postern_webhook_attempts_total", [("result", "http_error")]).totalValue == 1)
        #expect(try metrics.expectCounter("postern_webhook_attempts_total", [("result", "delivered")]).totalValue == 1)
    }

    @Test(
        "run() delivers the queue until its task is cancelled, or a service group running it shuts down, then returns",
        arguments: StorageBackend.allCases, [false, true])
    func runUntilStopped(_ backend: StorageBackend, inGroup: Bool) async throws {
        let setup = try await Self.setup(backend)
        let messageID = try await Self.deliver(setup.harness, to: "owned@pro.localhost")
        let transport = RecordingTransport()
        let clock = setup.harness.clock
        let dispatcher = WebhookDispatcher(
            queue: setup.queue(), transport: transport, changes: setup.harness.service.mail.changes,
            clock: { clock.nanoseconds / 1_000_000 }, logger: .init(label: "webhook-tests"),
            metricsFactory: setup.harness.metrics)
        let group = ServiceGroup(services: [dispatcher], logger: .init(label: "webhook-tests"))
        let running = Task { inGroup ? try await group.run() : await dispatcher.run() }
        while try await setup.queue().depth() > 0 { try await Task.sleep(for: .milliseconds(10)) }
        if inGroup { await group.triggerGracefulShutdown() } else { running.cancel() }
        try await running.value
        let sent = transport.sent.withLock { $0 }
        #expect(sent.count == 1 && sent.first?.header("X-Webhook-ID") == "evt_" + messageID)
    }

    @Test(
        "messages of one second reach the webhook in the order they arrived, one after another",
        arguments: StorageBackend.allCases)
    func arrivalOrder(_ backend: StorageBackend) async throws {
        let setup = try await Self.setup(backend)
        // Eight in one second, their random ids in any order: a tie broken by id would scramble them.
        var delivered: [String] = []
        for index in 0..<8 { delivered.append(try await Self.deliver(setup.harness, to: "owned@pro.localhost", subject: "m\(index)")) }
        let transport = RecordingTransport()
        let clock = setup.harness.clock
        let dispatcher = WebhookDispatcher(
            queue: setup.queue(), transport: transport, changes: setup.harness.service.mail.changes,
            clock: { clock.nanoseconds / 1_000_000 }, logger: .init(label: "webhook-tests"),
            metricsFactory: setup.harness.metrics)
        #expect(try await dispatcher.runOnce() == 8)
        let received = transport.sent.withLock { $0 }.map { $0.header("X-Webhook-ID") ?? "" }
        #expect(received == delivered.map { "evt_" + $0 })
    }

    @Test("two instances claiming at once never share an event", arguments: StorageBackend.allCases)
    func concurrentClaims(_ backend: StorageBackend) async throws {
        let setup = try await Self.setup(backend)
        for index in 0..<40 { try await Self.deliver(setup.harness, to: "owned@pro.localhost", subject: "m\(index)") }
        let other = try setup.harness.test.another()
        defer { other.close() }
        let queues = [setup.queue(), WebhookQueue(database: other, retryDelaySeconds: [30])]
        let now = setup.nowMS
        let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
            for round in 0..<20 {
                let queue = queues[round % 2]
                group.addTask { try await queue.claim(now: now, limit: 3).map(\.eventID) }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(claimed.count == 40 && Set(claimed).count == 40)
    }
}
