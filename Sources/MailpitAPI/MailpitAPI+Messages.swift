import HTTP1
import JSON
import MIME
import MailStore

/// The list, search, read status and delete routes (`server/apiv1/messages.go`).
extension MailpitAPI {
    /// `GET /api/v1/messages?start=&limit=`: `MessagesSummary` of the newest messages.
    func listMessages(_ call: MailpitCall) async throws -> HTTPResponse {
        try await summaries(call, filter: .all([]))
    }

    /// `GET /api/v1/search?query=&start=&limit=`: `MessagesSummary` of the messages that match; 400 without a query.
    func search(_ call: MailpitCall) async throws -> HTTPResponse {
        try await summaries(call, filter: try Self.query(call))
    }

    /// `DELETE /api/v1/search?query=`: deletes every message that matches; `ok`.
    func deleteSearch(_ call: MailpitCall) async throws -> HTTPResponse {
        _ = try await mail.delete(MailSelection(call.scope, try Self.query(call)))
        return Self.ok()
    }

    /// `PUT /api/v1/messages` `{"IDs", "Read", "Search"}`: marks the messages of `IDs`, those matching `Search`, or
    /// (neither given) every message, read or unread; `ok`. `IDs` and `Search` together are 400, as is an empty body.
    func setReadStatus(_ call: MailpitCall) async throws -> HTTPResponse {
        let body = try MailpitBody(call.request)
        guard !body.isEmpty else { throw MailpitRefusal.badRequest("EOF") }
        let ids = try body.strings("IDs")
        let search = try body.string("Search") ?? ""
        let read = try body.bool("Read") ?? false
        guard ids.isEmpty || search.isEmpty else {
            throw MailpitRefusal.badRequest("You may specify either IDs or a search query, not both")
        }
        let filter: MailFilter = !ids.isEmpty ? .ids(ids) : search.isEmpty ? .all([]) : MailpitSearch.filter(search)
        _ = try await mail.mark(MailSelection(call.scope, filter), read: read)
        return Self.ok()
    }

    /// `DELETE /api/v1/messages` `{"IDs"}`: deletes those messages, or every message for an empty body, `{}` or no
    /// `IDs` (Mailpit's rule); `ok`. A body that is no JSON object or form is 400, never "every message".
    func deleteMessages(_ call: MailpitCall) async throws -> HTTPResponse {
        let ids = try MailpitBody(call.request).strings("IDs")
        _ = try await mail.delete(MailSelection(call.scope, ids.isEmpty ? .all([]) : .ids(ids)))
        return Self.ok()
    }

    /// The `MessagesSummary` of the messages of `call`'s scope that pass `filter`, paged by `start` and `limit`.
    private func summaries(_ call: MailpitCall, filter: MailFilter) async throws -> HTTPResponse {
        let (start, limit) = page(call.request)
        let records = try await mail.listRecords(MailSelection(call.scope, filter, start: start, limit: limit))
        let everything = try await mail.counts(in: call.scope, matching: .all([]))
        let matching = filter == .all([]) ? everything : try await mail.counts(in: call.scope, matching: filter)
        return Self.json(
            .object([
                ("total", .int(Int64(everything.total))), ("unread", .int(Int64(everything.unread))),
                ("count", .int(Int64(records.count))), ("messages_count", .int(Int64(matching.total))),
                ("messages_unread", .int(Int64(matching.unread))), ("start", .int(Int64(start))),
                ("tags", .array(try await tagNames(call.scope).map(JSONValue.string))),
                ("messages", .array(records.map(MailpitJSON.summary))),
            ]))
    }

    /// `start` (default 0; below 0 or not a number: 0) and `limit` (default 50; below 0 or not a number: 50; above
    /// the configured maximum: that maximum), read as Mailpit's `getStartLimit` reads them.
    func page(_ request: HTTPRequest) -> (start: Int, limit: Int) {
        var start = 0
        var limit = 50
        if let text = request.queryItem("start"), let number = Int(text), number > 0 { start = number }
        if let text = request.queryItem("limit"), let number = Int(text), number > -1 { limit = number }
        return (min(start, Int(Int32.max)), min(limit, configuration.maximumLimit))
    }

    /// The filter of the `query` parameter; 400 `Error: no search query` when it is absent or blank.
    static func query(_ call: MailpitCall) throws -> MailFilter {
        let text = (call.request.queryItem("query") ?? "").trimmingSpaces()
        guard !text.isEmpty else { throw MailpitRefusal.badRequest("Error: no search query") }
        return MailpitSearch.filter(text)
    }
}
