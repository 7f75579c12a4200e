import ClientAddress
import HTTP1
import MailStore
import MailboxAccounts
import ServerKit

/// mail.tm's real-time events (https://docs.mail.tm/api/webhooks): a Mercure hub at `<base>/.well-known/mercure`
/// where an account's bearer subscribes to its topic, `/accounts/{id}`, and gets an event for every message that
/// arrives in its inbox, whose data is the Account resource with its new `used`.
///
/// 1. The rate limit is charged once, when the stream opens; the bearer must be a live mailbox token (401 in mail.tm's
///    token shape otherwise), the topics its own (``MercureSubscription``), and the client within its open streams
///    (8 a client, 10,000 an instance: 429, 503).
/// 2. `200 text/event-stream`, then for each message delivered to the account's inbox, in arrival order: `id:` (the
///    mail state after it, see ``MercureSubscription/eventID(state:messageID:)``) and `data:` (the Account, read when
///    the event goes). No `event:` field: Mercure's updates are plain messages, so a browser's `onmessage` sees them.
/// 3. Woken by the store's change stream (``MailStore/changeStream(of:from:quiet:until:recheck:)``): on PostgreSQL
///    every instance's deliveries, on SQLite this process's and, each second, other processes'. Resumed from
///    `Last-Event-ID`, what arrived since comes at once; a gap the change log no longer covers gets one event.
/// 4. A comment line (`:`) after 30 s without an event; the token is checked again before every event and comment,
///    and the stream ends when it no longer holds (the account deleted, its password reset).
/// 5. A database away for a failover ends nothing: the re-check throws it for the change stream to wait out, and the
///    Account an event carries is read again each second until the database is back
///    (``MailStore/outlastingOutages(until:clock:_:)``).
extension MailTMService {
    func mercure(_ request: HTTPRequest, _ context: RequestContext, _ writer: any HTTPResponseWriter) async {
        let decision = middleware.charge(.request, context)
        if let decision, !decision.allowed { return writer.respond(middleware.refusal(.request, decision)) }
        var opened = false
        do {
            let call = Call(request: request, parameters: RouteParameters(), now: clock())
            let account = try await account(call)
            let subscription = try MercureSubscription(
                topics: request.queryItems.filter { $0.name == "topic" }.map(\.value),
                lastEventID: request.headers["Last-Event-ID"] ?? request.queryItem("lastEventID"),
                accountID: account.id)
            let lease = try openLease(context)
            defer { lease.release() }
            // The state to send from is read before the head goes: a message delivered once the client sees the
            // stream open is one the stream sends.
            var from = subscription.resumeState
            if from == nil { from = try await mail.state(address: account.address) }
            let head = HTTPResponse(
                status: .ok,
                headers: [
                    "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-store", "X-Accel-Buffering": "no",
                ])
            writer.open(middleware.finish(head, decision))
            opened = true
            try await push(account, from: from, bearer: request.bearerToken, writer)
            writer.finish()
        } catch {
            if opened {
                if !(error is CancellationError) { _ = middleware.answer(error, context) }
                writer.finish()
            } else {
                writer.respond(middleware.finish(middleware.answer(error, context), decision))
            }
        }
    }

    private func openLease(_ context: RequestContext) throws -> EventStreamLimiter<ClientAddressKey>.Lease {
        do {
            return try mercureStreams.open(for: context.clientKey)
        } catch EventStreamLimiter<ClientAddressKey>.Refusal.tooManyForKey {
            throw MailTMError.tooManyRequests
        } catch {
            throw MailTMError.failure(.unavailable)
        }
    }

    /// Writes the events until the stream ends, the task is cancelled or the token stops holding.
    private func push(
        _ account: MailboxAccountSummary, from: Int64?, bearer: String?, _ writer: any HTTPResponseWriter
    ) async throws {
        // A token that no longer holds ends the stream; a database away (a failover) is thrown, for the stream to wait
        // out.
        let stream = mail.changeStream(of: account.address, from: from, quiet: configuration.mercureKeepAlive) {
            [self] in
            do {
                _ = try await accounts.account(mailboxToken: bearer)
                return true
            } catch let error as MailboxError where error == .invalidOrExpiredToken {
                return false
            }
        }
        for try await event in stream {
            guard !writer.hasEnded else { return }
            switch event {
            case .quiet:
                writer.write(Array(":\n\n".utf8))
            case .woken:
                continue
            case .changed(let change):
                // A gap the log no longer covers (or a resumption from a state it trimmed): one event for all of it.
                let arrivals =
                    change.log == nil && change.previous != nil
                    ? [change.state.description] : change.arrivals.map(\.messageID)
                for messageID in arrivals {
                    // Read again after a failover rather than ending the client's stream.
                    guard
                        let now = try await mail.outlastingOutages({
                            try await accounts.accountSummary(id: account.id)
                        })
                    else { return }
                    writer.write(
                        Array("id: \(MercureSubscription.eventID(state: change.state, messageID: messageID))\ndata: ".utf8)
                            + MailTMJSON.account(now).serialize() + Array("\n\n".utf8))
                }
            }
        }
    }
}
