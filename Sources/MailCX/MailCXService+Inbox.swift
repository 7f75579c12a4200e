import ClientAddress
import HTTP1
import JSON
import MailStore
import ServerKit

/// The inbox: mail.cx's long poll and its clearing.
///
/// `GET /inbox/{address}?since=&count=&limit=` (``MailCXInboxQuery``):
/// 1. The emails that arrived after `since` (all of the inbox without it), newest first, at most `limit`.
/// 2. At least `count` of them: 200 `{"emails": [...], "next_since": "<cursor>"}` at once.
/// 3. Else the request is held, woken by the store's change stream (every instance's deliveries on PostgreSQL), and
///    answers 200 as soon as `count` have arrived, or 204 when the hold (25 s, ``MailCXConfiguration/holdSeconds``)
///    ends. A client holds at most 10 polls at once (429 `rate_limit_exceeded` past them), an instance 10,000 (503).
/// 4. A database away for a failover while the request is held fails nothing: the change stream waits it out, and the
///    inbox is read again each second after a change (``MailStore/outlastingOutages(until:clock:_:)``), the hold
///    ending as before.
/// 5. `next_since` names the address's mail state when the answer was made: given back as `since`, only mail that
///    arrived after it is listed. A cursor the change log no longer covers lists the inbox as it is (older mail may
///    come again; none is lost).
extension MailCXService {
    func inbox(_ call: Call) async throws -> HTTPResponse {
        let address = try await readableAddress(call.parameters["address"], call.reader)
        let query = try MailCXInboxQuery(
            since: call.request.queryItem("since"), count: call.request.queryItem("count"),
            limit: call.request.queryItem("limit"), maximum: configuration.maximumCount)
        var found = try await arrivals(at: address, query)
        if found.emails.count >= query.count { return answer(found) }
        let lease = try hold(for: call.client)
        defer { lease.release() }
        let until = ContinuousClock.now + .seconds(configuration.holdSeconds)
        for try await event in mail.changeStream(of: address, from: found.state, until: until) {
            guard case .changed = event else { continue }
            // Read again after a failover rather than failing the held request; the hold still ends at `until`, with
            // the 204 it would end with had the database been there.
            do {
                found = try await mail.outlastingOutages(until: until) { try await arrivals(at: address, query) }
            } catch where MailStore.isOutage(error) {
                break
            }
            if found.emails.count >= query.count { return answer(found) }
        }
        return HTTPResponse(status: .noContent, headers: ["Cache-Control": "no-store"])
    }

    /// A place among the held polls: 429 `rate_limit_exceeded` past the client's, 503 past the instance's.
    private func hold(for client: ClientAddressKey) throws -> EventStreamLimiter<ClientAddressKey>.Lease {
        do {
            return try heldPolls.open(for: client)
        } catch EventStreamLimiter<ClientAddressKey>.Refusal.tooManyForKey {
            throw MailCXError.rateLimitExceeded
        } catch {
            throw MailCXError(.unavailable)
        }
    }

    private func answer(_ found: (emails: [MailSummary], state: Int64)) -> HTTPResponse {
        HTTPResponse.noStoreJSON(
            .ok,
            .object([
                ("emails", .array(found.emails.map(MailCXJSON.summary))),
                ("next_since", .string(MailCXInboxQuery.cursor(found.state))),
            ]))
    }

    /// The inbox's emails that arrived after `query.since` (all of them without it, or when the log no longer reaches
    /// it), newest first, at most `query.limit`, and the state they were read at. The state is read first: a message
    /// that arrives between the two reads is listed now and may come again after the cursor, never lost.
    func arrivals(at address: String, _ query: MailCXInboxQuery) async throws -> (emails: [MailSummary], state: Int64) {
        if let since = query.since, let (log, state) = try await mail.changes(address: address, since: since) {
            let created = log.filter { $0.kind == .created && $0.folderAfter == .inbox }.map(\.messageID).reversed()
            let records = try await mail.messages(address: address, ids: Array(created))
            let emails = created.compactMap { records[$0]?.summary }.filter { $0.folder == .inbox }
            return (Array(emails.prefix(query.limit)), state)
        }
        let state = try await mail.state(address: address)
        let page = try await mail.listPage(
            address: address, filter: .inFolder(.inbox), position: 0, limit: query.limit)
        return (page.rows.map(\.summary), state)
    }

    /// `DELETE /inbox/{address}`: every email at the address goes; 200 `{"deleted": n}`.
    func clearInbox(_ call: Call) async throws -> HTTPResponse {
        let address = try await readableAddress(call.parameters["address"], call.reader)
        let deleted = try await mail.deleteAll(address: address)
        return HTTPResponse.noStoreJSON(.ok, .object([("deleted", .int(Int64(deleted)))]))
    }
}
