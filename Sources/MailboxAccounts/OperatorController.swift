import AuthCrypto
import HTTP1
import JSON
import MailStore
import ServerKit

/// The operator's HTTP routes, for a test suite that uses Postern as its mail stand-in: search, wait and reset across
/// every address the store holds (mailboxes, agent inboxes, sandboxes and the SMTP catch-all). Registered only when
/// ``MailboxConfiguration/operatorToken`` is set (`POSTERN_OPERATOR_TOKEN`), so that without it they are 404; every
/// call needs `Authorization: Bearer <that token>`, compared in constant time, else 401 `{"error":"unauthorized"}`.
///
/// - Warning: the token reaches every message of every user; it belongs to whoever runs the server.
struct OperatorController: MailboxController {
    let surface: MailboxService

    /// The longest `?timeout=` of `/api/operator/messages/wait`, in seconds.
    static let operatorWaitMaximum = 120
    /// The `?timeout=` of `/api/operator/messages/wait` when none is given, in seconds.
    static let operatorWaitDefault = 30
    /// Most messages `GET /api/operator/messages` lists (the newest).
    static let operatorListLimit = 100

    /// Adds the operator's routes to `router` when a token is configured.
    func register(on router: inout ContextRouter) {
        guard let token = configuration.operatorToken, !token.isEmpty else { return }
        let expected = SHA256.hash(token)
        let path = "/api/operator/messages"
        router.add(.GET, path, deferred(.general, operatorOnly(expected, searchMessages)))
        router.add(.GET, path + "/wait", deferred(.general, operatorOnly(expected, waitForMatch)))
        router.add(.DELETE, path, deferred(.general, operatorOnly(expected, resetMessages)))
    }

    /// `handler` behind the operator's bearer: digests compared in constant time, so neither the token's bytes nor
    /// its length show in the time a refusal takes.
    private func operatorOnly(
        _ expected: [UInt8], _ handler: @escaping @Sendable (MailboxCall) async throws -> HTTPResponse
    ) -> @Sendable (MailboxCall) async throws -> HTTPResponse {
        { call in
            guard let presented = call.request.bearerToken, constantTimeEquals(SHA256.hash(presented), expected) else {
                var refusal = HTTPResponse.json(.unauthorized, #"{"error":"unauthorized"}"#)
                refusal.headers.replaceOrAdd("WWW-Authenticate", "Bearer")
                return refusal
            }
            return try await handler(call)
        }
    }

    /// `GET /api/operator/messages?to=&from=&subject=&text=`: `{"messages": [...]}`, newest first, at most 100.
    private func searchMessages(_ call: MailboxCall) async throws -> HTTPResponse {
        let found = try await mail.search(Self.operatorSearch(call), limit: Self.operatorListLimit)
        return MailboxJSON.response(.ok, [("messages", .array(found.map { .object(Self.operatorPairs($0)) }))])
    }

    /// `GET /api/operator/messages/wait?to=&subject=&timeout=S`: the oldest matching message as soon as there is
    /// one, or 204 after `timeout` seconds (default 30, at most 120).
    private func waitForMatch(_ call: MailboxCall) async throws -> HTTPResponse {
        let seconds = try call.integerQuery(
            "timeout", in: 0...Self.operatorWaitMaximum, fallback: Self.operatorWaitDefault)
        guard let found = try await mail.oldestMatch(Self.operatorSearch(call), timeout: .seconds(seconds)) else {
            return MailboxJSON.noContent()
        }
        return MailboxJSON.response(.ok, Self.operatorPairs(found))
    }

    /// `DELETE /api/operator/messages`: every message of every address (and what the sandboxes add to theirs);
    /// `{"deleted": n}`. Each address's JMAP state moves, as a deletion through JMAP would move it.
    private func resetMessages(_ call: MailboxCall) async throws -> HTTPResponse {
        let deleted = try await mail.deleteEverything()
        for records in surface.recordsBesideMessages { try await records.deleteEveryRecord() }
        return MailboxJSON.response(.ok, [("deleted", .int(Int64(deleted)))])
    }

    private static func operatorSearch(_ call: MailboxCall) -> MailSearch {
        let request = call.request
        return MailSearch(
            to: request.queryItem("to"), from: request.queryItem("from"), subject: request.queryItem("subject"),
            text: request.queryItem("text"))
    }

    /// A message list object of Mail.td's shape plus the address it is stored under and its envelope recipients.
    static func operatorPairs(_ summary: MailSummary) -> [(String, JSONValue)] {
        MailboxMessageJSON.summaryPairs(summary) + [
            ("address", .string(summary.address)),
            ("envelope_to", summary.envelopeTo.map(JSONValue.string) ?? .null),
        ]
    }
}
