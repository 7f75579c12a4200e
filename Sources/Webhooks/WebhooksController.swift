import Fetch
import HTTP1
import JSON
import MailboxAccounts
import MailboxRoutes
import ServerKit
import Time

/// Mail.td Pro's webhook endpoints (`/api/user/webhooks`, mailtd-pro-contract.md section 2), on the Mail.td surface's
/// bearer, rate limits and error shape; the rows are the ``WebhookStore``'s.
public struct WebhooksController: Sendable {
    /// The event types a webhook can subscribe to.
    static let webhookEventTypes: Set<String> = ["email.received"]

    let surface: MailboxService
    let store: WebhookStore

    /// - Parameters:
    ///   - surface: the Mail.td surface: who the Pro user is, its rate limits and answers.
    ///   - store: the webhooks' rows.
    public init(surface: MailboxService, store: WebhookStore) {
        self.surface = surface
        self.store = store
    }

    /// Adds the five webhook routes to `router`.
    public func register(on router: inout ContextRouter) {
        let limit = MailboxService.bodyLimit
        router.add(.GET, "/api/user/webhooks", surface.deferred(.general, listWebhooks))
        router.add(.POST, "/api/user/webhooks", bodyLimit: limit, surface.deferred(.general, createWebhook))
        router.add(.DELETE, "/api/user/webhooks/{id}", surface.deferred(.general, deleteWebhook))
        router.add(.POST, "/api/user/webhooks/{id}/rotate", bodyLimit: limit, surface.deferred(.general, rotateWebhook))
        router.add(.GET, "/api/user/webhooks/{id}/deliveries", surface.deferred(.general, webhookDeliveries))
    }

    /// `GET /api/user/webhooks`: `{"webhooks":[Webhook...]}`, without secrets.
    func listWebhooks(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await surface.requireProUserID(call)
        let list = try await store.webhooks(ownerID: user).map { JSONValue.object(webhookMembers($0)) }
        return MailboxJSON.response(.ok, [("webhooks", .array(list))])
    }

    /// `POST /api/user/webhooks {"url","events"}`: 201 with the secret, shown this once. `events` missing, null or
    /// `[]` means `["email.received"]`. 400 `invalid_url` for anything but an absolute `https` URL the outbound
    /// policy allows (names are vetted again after resolution at every delivery) without user info or a fragment (see
    /// ``isWebhookURL(_:policy:)``), 400 `invalid_events`, 403
    /// `webhook_limit_reached` for a second webhook.
    func createWebhook(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await surface.requireProUserID(call)
        let body = try MailboxJSON.object(call.request.body)
        guard case .string(let url)? = body["url"] else { throw MailboxError.invalidURL }
        // Anything but a list of strings is an event type no webhook receives: refused after the URL, as always.
        var events: [String]?
        switch body["events"] {
        case nil, .null?: break
        case .array(let items)?:
            events = items.map { item in
                guard case .string(let name) = item else { return "" }
                return name
            }
        default: events = [""]
        }
        let (record, secret) = try await createWebhookRecord(ownerID: user, url: url, events: events, now: call.now)
        return MailboxJSON.response(.created, webhookMembers(record) + [("secret", .string(secret))])
    }

    /// Whether `url` may be a webhook's: at most 2,048 bytes, allowed by the outbound `policy`, and with neither user
    /// info (`https://user:secret@host/`: a secret kept in the URL and shown back in every listing, or a
    /// `trusted.example@evil.example` that reads as another host) nor a fragment, which no request carries. Every
    /// place that sets a webhook's URL asks this.
    public static func isWebhookURL(_ url: String, policy: OutboundPolicy) -> Bool {
        guard url.utf8.count <= 2048, !url.utf8.contains(UInt8(ascii: "#")), (try? policy.vet(url)) != nil else {
            return false
        }
        // The authority runs from after "//" to the first "/", "?" or "#"; vet() made sure the "//" is there.
        guard let slashes = url.range(of: "//") else { return false }
        let authority = url.utf8[slashes.upperBound...].prefix {
            $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#")
        }
        return !authority.contains(UInt8(ascii: "@"))
    }

    /// `DELETE /api/user/webhooks/{id}`: 204; its queued events go with it and no delivery starts afterwards.
    func deleteWebhook(_ call: MailboxCall) async throws -> HTTPResponse {
        try await deleteWebhook(id: call.id, ownerID: surface.requireProUserID(call))
        return MailboxJSON.noContent()
    }

    /// `POST /api/user/webhooks/{id}/rotate`: a new secret (the old one stops signing at once), status `active`,
    /// failure count 0. Answers the webhook with its new `secret` (a superset of the `{"id","secret"}` the SDKs read).
    func rotateWebhook(_ call: MailboxCall) async throws -> HTTPResponse {
        let (record, secret) = try await rotateWebhookRecord(id: call.id, ownerID: surface.requireProUserID(call))
        return MailboxJSON.response(.ok, webhookMembers(record) + [("secret", .string(secret))])
    }

    /// `GET /api/user/webhooks/{id}/deliveries`: the last 20 attempts, newest first.
    func webhookDeliveries(_ call: MailboxCall) async throws -> HTTPResponse {
        let list: [JSONValue] = try await deliveries(webhookID: call.id, ownerID: surface.requireProUserID(call)).map {
            .object([
                ("id", .string($0.id)), ("event_type", .string($0.eventType)), ("event_id", .string($0.eventID)),
                ("attempt", .int($0.attempt)), ("status_code", $0.statusCode.map(JSONValue.int) ?? .null),
                ("error", $0.error.map(JSONValue.string) ?? .null),
                ("duration_ms", $0.durationMS.map(JSONValue.int) ?? .null),
                ("created_at", .string(RFC3339.format($0.createdMS / 1000))),
            ])
        }
        return MailboxJSON.response(.ok, [("deliveries", .array(list))])
    }

    /// A Webhook object without its secret.
    func webhookMembers(_ record: WebhookRecord) -> [(String, JSONValue)] {
        [
            ("id", .string(record.id)), ("url", .string(record.url)),
            ("events", .array(record.events.map(JSONValue.string))), ("status", .string(record.status)),
            ("failure_count", .int(record.failureCount)),
            ("last_triggered_at", MailboxJSON.time(record.lastTriggeredAt)),
            ("created_at", MailboxJSON.time(record.createdAt)),
        ]
    }
}
