import MailboxAccounts
import MailboxRoutes
import AuthCrypto
import HTTP1
import JSON
import MailStore
import ServerKit
import Synchronization
import WebSocket

/// How many times `DELETE /api/operator/messages` ran on this instance: what open event sockets compare against to
/// say `reset`.
final class OperatorResets: Sendable {
    private let count = Atomic<Int>(0)

    /// One more reset.
    func record() { count.add(1, ordering: .relaxed) }

    /// The resets so far.
    var value: Int { count.load(ordering: .relaxed) }
}

/// Live events for test suites at `GET /api/operator/events` (a WebSocket), in Mailpit's shape: one
/// `{"type":"new","message":{…}}` per message stored at any address (mailboxes, agent inboxes, sandboxes, the
/// catch-all), the `message` being what `GET /api/operator/messages` lists, in arrival order; and `{"type":"reset"}`
/// once every message is gone after `DELETE /api/operator/messages` (on this instance at once; through another
/// instance, when this one sees the store empty after it held mail; once per emptying, not again before new mail). `?to=` keeps only messages whose recipients
/// contain it, as the list's filter. The upgrade request carries `Authorization: Bearer <POSTERN_OPERATOR_TOKEN>`,
/// else 401 before the upgrade. Only what arrives after the socket opens is sent; what the client sends is ignored.
extension OperatorController {
    /// The endpoint's path.
    static let eventsPath = "/api/operator/events"

    /// Adds the route (with the other operator routes: only when a token is configured).
    func registerEvents(on router: inout ContextRouter, expected: OperatorBearer) {
        let (surface, resets) = (self.surface, self.resets)
        router.add(
            .GET, Self.eventsPath,
            .webSocket { request, _, _, _ in
                guard expected.admits(request) else { return .refuse(OperatorBearer.refusal) }
                let to = request.queryItem("to")
                return .accept(subprotocol: nil) { inbound, outbound in
                    try await inbound.discarding { await Self.pushEvents(surface, resets, to: to, outbound) }
                }
            })
    }

    /// Sends events until the socket closes (its task is cancelled then). Every look, the first included, runs as
    /// the change stream's own looks do (``MailChangeStream/firstLook(_:)``): a failover is waited out, never a closed
    /// socket, and what was sent stays sent (the position moves with each event sent).
    private static func pushEvents(
        _ surface: MailboxService, _ resets: OperatorResets, to: String?, _ outbound: WebSocketOutbound
    ) async {
        let mail = surface.mail
        var started = false
        var point: MailSearchPoint?
        var resetsSeen = 0
        var held = false
        var resetSinceMail = false
        do {
            // Every address's change stream: each announcement (and on SQLite each look for other processes' writes)
            // is a look here, from the first (what arrived while the socket opened).
            let _: Bool? = try await mail.changeStream(of: nil).firstLook { _ in
                if !started {
                    if let newest = try await mail.search(MailSearch(), limit: 1).first {
                        point = try await mail.point(ofMessage: newest.id)
                    }
                    resetsSeen = resets.value
                    held = try await mail.count(MailSearch()) > 0
                    started = true
                }
                let total = try await mail.count(MailSearch())
                // One reset per emptying: a DELETE here both empties the store and counts, and is said once; a second
                // reset with no mail between says nothing new.
                let counted = resets.value
                if (counted != resetsSeen || (held && total == 0)) && !resetSinceMail {
                    outbound.send(.text(#"{"type":"reset"}"#))
                    resetSinceMail = true
                    // Whatever the store holds now arrived after the reset: from the first again (the arrival counter
                    // may start over once the store is empty).
                    point = nil
                }
                resetsSeen = counted
                held = total > 0
                if held { resetSinceMail = false }
                while let found = try await mail.oldestMatch(MailSearch(to: to, since: point), timeout: .zero) {
                    let event = JSONValue.object([
                        ("type", .string("new")),
                        ("message", .object(try await OperatorController.operatorMessage(found, in: mail))),
                    ])
                    let next = try await mail.point(ofMessage: found.id) ?? .second(found.receivedAt + 1)
                    outbound.send(.text(String(decoding: event.serialize(), as: UTF8.self)))
                    point = next
                }
                return nil
            }
        } catch {
            if !Task.isCancelled { outbound.close(.internalError, reason: "") }
        }
    }
}
