import ClientAddress
import Directory
import HTTP1
import MailStore
import ServerKit

/// `GET /jmap/eventsource` (RFC 8620 section 7.3): `state` events woken by the mail change stream, `ping`s, and
/// `Last-Event-ID` resumption.
///
/// The mail types share the account's one mail state (as their `*/get` reports it), so an event names each subscribed
/// one that changed with that state: `Email`, `Mailbox` and `Thread` on any change, `EmailDelivery` only when a message
/// arrived in the inbox. `EmailSubmission` (when the service has a ledger) has the ledger's state, which moves when a
/// submission is recorded and when the queue moves one of its recipients; the ledger announces each move on the same
/// change stream under the sender's address. The event id names the states sent (``EventSourceState``). A client
/// without `Last-Event-ID` (or with one that is not an id of ours) gets the current states at once; with one, it gets
/// an event as soon as a state it watches differs from it (an id with the mail state alone starts `EmailSubmission`
/// from its state when the stream opens). The stream checks the bearer again before every event and ping, and ends
/// when it no longer authenticates.
extension JMAPService {
    func eventSource(_ request: HTTPRequest, _ context: RequestContext, _ writer: any HTTPResponseWriter) async {
        let decision = middleware.charge(.request, context)
        if let decision, !decision.allowed { return writer.respond(middleware.refusal(.request, decision)) }
        var opened = false
        do {
            let client = context.clientAddress
            guard let account = try await authenticate(request, client: client) else { throw RequestError.unauthorized }
            guard account.permissions.contains(.read) else {
                throw AuthenticationRefusal(
                    .insufficientScope(required: .read), "The event source needs the mail.read scope, which this grant lacks.")
            }
            let options = try EventSourceRequest(
                types: request.queryItem("types"), closeAfter: request.queryItem("closeafter"),
                ping: request.queryItem("ping"), lastEventID: request.headers["Last-Event-ID"],
                pingRange: configuration.eventSourcePingRange, submissions: true)
            let lease = try openLease(context)
            onEventStream(.opened)
            defer {
                lease.release()
                onEventStream(.closed)
            }
            let head = HTTPResponse(
                status: .ok,
                headers: [
                    "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-store",
                    "X-Accel-Buffering": "no",
                ])
            writer.open(middleware.finish(head, decision))
            opened = true
            try await pushEvents(account, request, client: client, options, writer)
            writer.finish()
        } catch {
            if opened {
                if !(error is CancellationError) { _ = middleware.answer(error, context) }  // reported when unforeseen
                writer.finish()
            } else {
                writer.respond(middleware.finish(middleware.answer(error, context), decision))
            }
        }
    }

    /// A place among the open streams for the context's client.
    /// - Throws: `RequestError` 429 over the per-client cap, 503 over the total.
    private func openLease(_ context: RequestContext) throws -> EventStreamLimiter<ClientAddressKey>.Lease {
        do {
            return try eventStreams.open(for: context.clientKey)
        } catch EventStreamLimiter<ClientAddressKey>.Refusal.tooManyForKey {
            throw RequestError(
                status: .tooManyRequests, type: "about:blank",
                detail: "Too many event streams open from this address (at most \(configuration.maxEventStreamsPerClient)); "
                    + "close one and retry.")
        } catch {
            throw RequestError(
                status: .serviceUnavailable, type: "about:blank",
                detail: "Too many event streams open on this server; retry later.")
        }
    }

    /// Writes state events and pings until the stream ends, the task is cancelled, the bearer stops authenticating
    /// or (with `closeafter=state`) the first state event is out. The account's change stream
    /// (``MailStore/changeStream(of:from:quiet:until:recheck:)``) wakes it and checks the bearer before each element.
    private func pushEvents(
        _ account: JMAPAccount, _ request: HTTPRequest, client: IPAddress?, _ options: EventSourceRequest,
        _ writer: any HTTPResponseWriter
    ) async throws {
        var sent = options.lastEvent
        let quiet: Duration = options.ping > 0 ? .seconds(options.ping) : configuration.eventSourceRecheck
        let mailTypes = options.types.filter { $0 != EventSourceRequest.submissionType }
        // An id naming the mail state alone (a stream that did not watch EmailSubmission, a client that took a
        // `/get` state for an id): EmailSubmission counts from its state now, without an event for it.
        if var known = sent, known.submission == nil, options.watchesSubmissions {
            known.submission = try await outbound.ledger.state(accountID: account.id)
            sent = known
        }
        let stream = store.changeStream(of: account.address, from: nil, quiet: quiet) { [self] in
            try await authenticate(request, client: client) == account
        }
        for try await event in stream {
            guard !writer.hasEnded else { return }
            if event == .quiet {
                if options.ping > 0 {
                    writer.write(EventSourceEvent.ping(interval: options.ping))
                    onEventStream(.pushed(isState: false))
                }
                continue
            }
            // Read again after a failover rather than ending the client's stream.
            let (now, changed) = try await store.outlastingOutages { [sent] in
                let mail: Int64
                if case .changed(let change) = event { mail = change.state } else {
                    mail = try await store.state(address: account.address)
                }
                let now = EventSourceState(
                    mail: mail,
                    submission: options.watchesSubmissions
                        ? try await outbound.ledger.state(accountID: account.id) : nil)
                return (now, now == sent ? [] : try await changedStates(account, since: sent, now: now, mailTypes: mailTypes))
            }
            guard now != sent, !changed.isEmpty else { continue }
            writer.write(EventSourceEvent.state(accountID: account.id, changed: changed, id: now.id))
            onEventStream(.pushed(isState: true))
            sent = now
            if options.closeAfterState { return }
        }
    }

    /// The watched types whose state differs between `sent` (what the client was told, nil when unknown) and `now`,
    /// each with its new state: the mail types of `mailTypes` that changed (see ``changedTypes``), then
    /// `EmailSubmission` when `now` has a submission state that moved.
    func changedStates(
        _ account: JMAPAccount, since sent: EventSourceState?, now: EventSourceState, mailTypes: [String]
    ) async throws -> [(type: String, state: String)] {
        var changed: [(type: String, state: String)] = []
        if now.mail != sent?.mail {
            changed = try await changedTypes(account.address, since: sent?.mail, now: now.mail, among: mailTypes)
                .map { ($0, String(now.mail)) }
        }
        if let submission = now.submission, submission != sent?.submission {
            changed.append((EventSourceRequest.submissionType, submission))
        }
        return changed
    }

    /// The subscribed types that changed at `address` between state `since` and `now`: all of them when `since` is
    /// unknown or no longer in the log; `EmailDelivery` only when a message arrived in the inbox.
    private func changedTypes(
        _ address: String, since: Int64?, now: Int64, among subscribed: [String]
    ) async throws -> [String] {
        // Only `EmailDelivery` depends on what changed: without it the log is not read.
        guard subscribed.contains("EmailDelivery"), let since, since < now,
            let changes = try await store.changes(address: address, since: since)
        else {
            return subscribed
        }
        let delivered = changes.log.contains { $0.kind == .created && $0.folderAfter == .inbox }
        return subscribed.filter { $0 != "EmailDelivery" || delivered }
    }
}
