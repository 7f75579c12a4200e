import MailboxAccounts
import MailboxRoutes
import AuthCrypto
import HTTP1
import JSON
import MailExtraction
import MailStore
import ServerKit
import Time

/// The operator's HTTP routes, for a test suite that uses Postern as its mail stand-in: search, wait and reset across
/// every address the store holds (mailboxes, agent inboxes, sandboxes and the SMTP catch-all). Registered only when
/// ``MailboxConfiguration/operatorToken`` is set (`POSTERN_OPERATOR_TOKEN`), so that without it they are 404; every
/// call needs `Authorization: Bearer <that token>`, compared in constant time, else 401 `{"error":"unauthorized"}`.
///
/// - Warning: the token reaches every message of every user; it belongs to whoever runs the server.
public struct OperatorController: MailboxController {
    package let surface: MailboxService
    /// The other surfaces' accounts (the agents'), removed with the Mail.td accounts by `?reset=accounts`.
    let accountsBesideMailboxes: [any OperatorAccountReset]
    /// The operator's resets on this instance, for the open `/api/operator/events` sockets.
    let resets = OperatorResets()
    /// When the API was made (the accounts' clock's seconds): the accounts an operator's `?reset=accounts` removes are
    /// those created from then on.
    let startedAt: Int64

    /// The API on `surface`; the operator's `?reset=accounts` removes `accountsBesideMailboxes`' accounts (the agents')
    /// with the Mail.td accounts made since now.
    public init(surface: MailboxService, accountsBesideMailboxes: [any OperatorAccountReset] = []) {
        self.surface = surface
        self.accountsBesideMailboxes = accountsBesideMailboxes
        self.startedAt = surface.accounts.clock()
    }

    /// The longest `?timeout=` of `/api/operator/messages/wait`, in seconds.
    static let operatorWaitMaximum = 120
    /// The `?timeout=` of `/api/operator/messages/wait` when none is given, in seconds.
    static let operatorWaitDefault = 30
    /// Most messages `GET /api/operator/messages` lists at once (`?limit=`, also its default).
    static let operatorListLimit = 100
    /// The largest `?start=` of `GET /api/operator/messages`: how many matches a page may pass over.
    static let operatorListStartMaximum = 1_000_000

    /// Adds the operator's routes to `router` when a token is configured.
    public func register(on router: inout ContextRouter) {
        guard let expected = OperatorBearer(configuration) else { return }
        let path = "/api/operator/messages"
        router.add(.GET, path, deferred(.general, operatorOnly(expected, searchMessages)))
        router.add(.GET, path + "/wait", deferred(.general, operatorOnly(expected, waitForMatch)))
        router.add(.DELETE, path, deferred(.general, operatorOnly(expected, resetMessages)))
        let message = path + "/{messageID}"
        router.add(.GET, message, deferred(.general, operatorOnly(expected, messageDetail)))
        router.add(
            .PUT, message, bodyLimit: MailboxService.bodyLimit, deferred(.general, operatorOnly(expected, markMessage)))
        router.add(.DELETE, message, deferred(.general, operatorOnly(expected, deleteMessage)))
        router.add(.GET, message + "/raw", deferred(.general, operatorOnly(expected, rawMessage)))
        router.add(.GET, message + "/attachments/{index}", deferred(.general, operatorOnly(expected, attachment)))
        registerEvents(on: &router, expected: expected)
    }

    /// `handler` behind the operator's bearer, a parameter it cannot use answered with its 400.
    func operatorOnly(
        _ expected: OperatorBearer, _ handler: @escaping @Sendable (MailboxCall) async throws -> HTTPResponse
    ) -> @Sendable (MailboxCall) async throws -> HTTPResponse {
        expected.guarding { call in
            do {
                return try await handler(call)
            } catch let refused as OperatorParameterError {
                return refused.response
            }
        }
    }

    /// `GET /api/operator/messages?to=&from=&subject=&text=&has_code=&link_kind=&since=&start=&limit=`: `{"messages":
    /// [...], "total": n, "start": n}`, newest first: `limit` (1 to 100, default 100) of the `total` matches after the
    /// newest `start`; each message with its codes and links (``extractionPairs(_:)``).
    private func searchMessages(_ call: MailboxCall) async throws -> HTTPResponse {
        let limit = try call.operatorInteger("limit", in: 1...Self.operatorListLimit, fallback: Self.operatorListLimit)
        let start = try call.operatorInteger("start", in: 0...Self.operatorListStartMaximum, fallback: 0)
        let search = try await operatorSearch(call)
        let found = try await mail.search(search, limit: limit, start: start)
        return MailboxJSON.response(
            .ok,
            [
                ("messages", .array(try await operatorMessages(found))),
                ("total", .int(Int64(try await mail.count(search)))), ("start", .int(Int64(start))),
            ])
    }

    /// `GET /api/operator/messages/wait?to=&from=&subject=&text=&has_code=&link_kind=&since=&timeout=S`: the oldest
    /// matching message (after `since`) as soon as there is one, or 204 after `timeout` seconds (default 30, at most
    /// 120).
    private func waitForMatch(_ call: MailboxCall) async throws -> HTTPResponse {
        let seconds = try call.operatorInteger(
            "timeout", in: 0...Self.operatorWaitMaximum, fallback: Self.operatorWaitDefault)
        guard let found = try await mail.oldestMatch(try await operatorSearch(call), timeout: .seconds(seconds)) else {
            return MailboxJSON.noContent()
        }
        return MailboxJSON.response(.ok, try await Self.operatorMessage(found, in: mail))
    }

    /// What `DELETE /api/operator/messages?reset=` removes.
    enum ResetScope: String {
        /// Every message (the default): the accounts stay.
        case messages
        /// Every message, and the accounts created since this server started (Mail.td's and the agents'), so that a
        /// suite may create the same address or username again.
        case accounts
        /// Every message, every account whenever it was made (Mail.td's and the agents'), and every Pro user with
        /// what hangs off one (tokens, sandbox, webhook, domains, passkeys); the owners and theirs stay.
        case everything
    }

    /// `DELETE /api/operator/messages[?reset=messages|accounts|everything]`: every message of every address (and what
    /// the sandboxes add to theirs), `{"deleted": n}`; with `reset=accounts` also the accounts created since the
    /// server started, Mail.td's and the agents', `{"deleted": n, "accounts_deleted": m}`; with `reset=everything`
    /// every such account of any age and every Pro user, `{"deleted": n, "accounts_deleted": m,
    /// "pro_users_deleted": p}`, the owners kept. Each address's JMAP state moves, as a deletion through JMAP would
    /// move it. Another `reset` value is 400 `invalid_request` naming `reset`.
    private func resetMessages(_ call: MailboxCall) async throws -> HTTPResponse {
        guard let scope = ResetScope(rawValue: call.request.queryItem("reset") ?? "messages") else {
            throw OperatorParameterError(parameter: "reset", message: "reset must be messages, accounts or everything")
        }
        let deleted = try await mail.deleteEverything()
        var answer: [(String, JSONValue)] = [("deleted", .int(Int64(deleted)))]
        if scope != .messages {
            // Int64.min: every account, the ones made before this server started too.
            let since = scope == .everything ? Int64.min : startedAt
            var accounts = try await surface.store.deleteAccounts(createdSince: since)
            for others in accountsBesideMailboxes {
                accounts += try await others.deleteAccounts(createdSince: since)
            }
            answer.append(("accounts_deleted", .int(Int64(accounts))))
        }
        if scope == .everything {
            let proUsers = try await surface.store.deleteEveryProUser()
            answer.append(("pro_users_deleted", .int(Int64(proUsers))))
        }
        resets.record()
        mail.changes.anyChange.signal()
        return MailboxJSON.response(.ok, answer)
    }

    /// The filters of `call`'s query. `since` is an RFC 3339 time (messages of its second on) or the id of a stored
    /// message (those that arrived after it); anything else, an unknown id included, is a 400 naming `since`.
    /// `has_code` is `true` or `false`, `link_kind` a kind's name (`verify`, `sign-in`, `reset`, `unsubscribe`,
    /// `other`); another value is a 400 naming it.
    private func operatorSearch(_ call: MailboxCall) async throws -> MailSearch {
        let request = call.request
        var since: MailSearchPoint?
        if let text = request.queryItem("since") {
            if let second = RFC3339.parse(text) {
                since = .second(second)
            } else if let point = try await mail.point(ofMessage: text) {
                since = point
            } else {
                throw OperatorParameterError.since
            }
        }
        var hasCode: Bool?
        if let text = request.queryItem("has_code") {
            guard let wanted = Bool(text) else {
                throw OperatorParameterError(parameter: "has_code", message: "has_code must be true or false")
            }
            hasCode = wanted
        }
        var linkKind: LinkKind?
        if let text = request.queryItem("link_kind") {
            guard let kind = LinkKind(name: text) else {
                throw OperatorParameterError(
                    parameter: "link_kind",
                    message: "link_kind must be one of " + LinkKind.allCases.map(\.name).joined(separator: ", "))
            }
            linkKind = kind
        }
        return MailSearch(
            to: request.queryItem("to"), from: request.queryItem("from"), subject: request.queryItem("subject"),
            text: request.queryItem("text"), since: since, hasCode: hasCode, linkKind: linkKind)
    }

    /// A message list object of Mail.td's shape plus the address it is stored under and its envelope recipients.
    static func operatorPairs(_ summary: MailSummary) -> [(String, JSONValue)] {
        MailboxMessageJSON.summaryPairs(summary) + [
            ("address", .string(summary.address)),
            ("envelope_to", .array(summary.envelopeTo.map(JSONValue.string))),
        ]
    }
}
