import ClientAddress
import HTTP1
import JSON
import MailStore
import ServerKit
import Synchronization
import WebSocket

/// JMAP over WebSocket (RFC 8887) at `GET /jmap/ws`, the session's `urn:ietf:params:jmap:websocket` url.
///
/// The upgrade: the client offers the `jmap` subprotocol (else 400 before the upgrade: RFC 8887 section 3 names no
/// other) and authenticates as `POST /jmap/api` does, `Authorization: Bearer <capability JWT or OAuth access token>`,
/// checked by the same authenticator under the same rate limit before the upgrade: a missing or refused bearer gets
/// the API's own 401 (`WWW-Authenticate` and the problem body), never a `101`. The check waits on storage, so the
/// route decides later (`WebSocketRouteAnswer.later`): the connection waits for it without holding the event loop.
///
/// Then, for each text message, in order, one at a time:
/// - `Request` (with `@type` and an optional `id`): answered with a `Response` carrying the `id` as `requestId`, run by
///   ``JMAPService/run(_:_:client:requestID:)`` exactly as `POST /jmap/api` runs it (the same limits and rate limit);
/// - `WebSocketPushEnable`: `StateChange` objects from then on, for `dataTypes` (null: every type the event source
///   pushes), each with a `pushState` (the event source's event id) which a later enable may give back to hear at once
///   what changed since; without one, only changes after the enable are pushed. A later enable replaces the first;
/// - `WebSocketPushDisable`: no more `StateChange`s;
/// - anything else: a `RequestError` (``JMAPSocketMessage`` states the rules), and the socket stays open.
/// More than `maxConcurrentRequests` messages waiting: those past it get a `RequestError` of type `limit`.
///
/// The bearer is checked again before each answer and each `StateChange`, and while push is idle at the event
/// source's recheck interval: revoked or expired, the socket is closed with 1008 (reason `token_revoked`).
///
/// The socket is one ``WebSocketHandler`` (``JMAPSocketSession/run(_:)``): a child task answers, the push runs in a
/// task the answering loop owns and awaits, and the socket's end cancels them all.
extension JMAPService {
    /// The path of the endpoint.
    public static let webSocketPath = "/jmap/ws"
    /// The subprotocol the client must offer (RFC 8887 section 3).
    public static let webSocketSubprotocol = "jmap"

    /// The endpoint's URL as the session advertises it: the base URL with `ws`/`wss` for `http`/`https`.
    var webSocketURL: String {
        let base = configuration.baseURL
        if base.hasPrefix("https://") { return "wss://" + base.dropFirst(8) + Self.webSocketPath }
        if base.hasPrefix("http://") { return "ws://" + base.dropFirst(7) + Self.webSocketPath }
        return base + Self.webSocketPath
    }

    /// The route's decision on a valid opening handshake (on the event loop).
    func webSocketAnswer(
        _ request: HTTPRequest, _ context: RequestContext, _ handshake: WebSocketHandshake.Request
    ) -> WebSocketRouteAnswer {
        guard handshake.protocols.contains(Self.webSocketSubprotocol) else {
            return .refuse(
                RequestError(
                    status: .badRequest, type: "about:blank",
                    detail: "Offer the `jmap` subprotocol in Sec-WebSocket-Protocol (RFC 8887 section 3)."
                ).response)
        }
        return .later { [self] in
            var opened: JMAPAccount?
            let refusal = await authenticated(request, context) { account in
                opened = account
                return HTTPResponse(status: .noContent)
            }
            guard let account = opened else { return .refuse(refusal) }
            return .accept(subprotocol: Self.webSocketSubprotocol) { [self] inbound, outbound in
                await JMAPSocketSession(
                    service: self, request: request, account: account, context: context, outbound: outbound
                ).run(inbound)
            }
        }
    }
}

/// One `/jmap/ws` socket: its messages answered in order, and its pushes. It lives as long as ``run(_:)``.
final class JMAPSocketSession: Sendable {
    let service: JMAPService
    /// The upgrade request: its bearer is checked again before each answer and push.
    let request: HTTPRequest
    /// The account the bearer opened at the upgrade.
    let account: JMAPAccount
    let context: RequestContext
    let outbound: WebSocketOutbound
    /// Messages handed to the answering loop and not yet answered.
    private let waiting = Atomic<Int>(0)

    init(
        service: JMAPService, request: HTTPRequest, account: JMAPAccount, context: RequestContext,
        outbound: WebSocketOutbound
    ) {
        self.service = service
        self.request = request
        self.account = account
        self.context = context
        self.outbound = outbound
    }

    /// Reads the client's messages and answers them, in order, in a child task, so that one past the limit is
    /// answered at once, without waiting for those before it. Returns when the socket stops being open.
    func run(_ inbound: WebSocketInbound) async {
        let (messages, queue) = AsyncStream.makeStream(of: WebSocketMessage.self)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.serve(messages) }
            for await message in inbound {
                guard waiting.add(1, ordering: .relaxed).newValue <= service.configuration.maxConcurrentRequests else {
                    waiting.subtract(1, ordering: .relaxed)
                    let id = JMAPSocketMessage.requestID(of: message, maxSizeRequest: service.configuration.maxSizeRequest)
                    let limit = service.configuration.maxConcurrentRequests
                    send(
                        JMAPSocketError(
                            requestID: id,
                            error: .limit("maxConcurrentRequests", "At most \(limit) requests wait on one socket.")
                        ).json)
                    continue
                }
                queue.yield(message)
            }
            queue.finish()
            group.cancelAll()
        }
    }

    private func send(_ value: JSONValue) {
        outbound.send(.text(String(decoding: value.serialize(), as: UTF8.self)))
    }

    /// Answers each message in order, and pushes while push is enabled, until the messages end or the task is
    /// cancelled; the push task ends before it returns.
    private func serve(_ messages: AsyncStream<WebSocketMessage>) async {
        var push: Task<Void, Never>?
        for await message in messages {
            defer { waiting.subtract(1, ordering: .relaxed) }
            do {
                guard try await stillAuthenticates(account) else { break }
            } catch {
                fail(error)  // a message is not answered unchecked; the client reconnects after the failover
                break
            }
            switch JMAPSocketMessage.read(message, maxSizeRequest: service.configuration.maxSizeRequest) {
            case .failure(let error):
                send(error.json)
            case .success(.request(let id, let envelope)):
                await answer(envelope, id: id, account)
            case .success(.pushEnable(let types, let pushState)):
                push?.cancel()
                push = enablePush(account, types: types, pushState: pushState)
            case .success(.pushDisable):
                push?.cancel()
                push = nil
            }
        }
        push?.cancel()
        await push?.value
    }

    /// Runs one request and sends its `Response`, or its `RequestError`.
    private func answer(_ envelope: JSONValue, id: String?, _ account: JMAPAccount) async {
        if let decision = service.middleware.charge(.request, context), !decision.allowed {
            return send(JMAPSocketError(requestID: id, error: .tooManyRequests(.request, decision)).json)
        }
        do {
            let response = try await service.run(
                envelope, account, client: context.clientKey, requestID: context.requestID)
            send(JMAPSocketMessage.response(response, requestID: id))
        } catch let error as RequestError {
            send(JMAPSocketError(requestID: id, error: error).json)
        } catch {
            let failure = ServiceFailure(error)
            if failure.shouldLog { service.onUnexpectedError(error, context.requestID) }
            send(JMAPSocketError(requestID: id, error: .serverFailure(failure)).json)
        }
    }

    /// Starts pushing `StateChange`s for `types` (nil: all), from `pushState` when given; nil when push is refused.
    private func enablePush(_ account: JMAPAccount, types: [String]?, pushState: String?) -> Task<Void, Never>? {
        guard account.permissions.contains(.read) else {
            send(
                JMAPSocketError(
                    requestID: nil,
                    error: RequestError(
                        status: .forbidden, type: "about:blank",
                        detail: "Push needs the mail.read scope, which this grant lacks.")
                ).json)
            return nil
        }
        let pushable = EventSourceRequest.mailTypes + [EventSourceRequest.submissionType]
        let watched = types.map { names in pushable.filter(names.contains) } ?? pushable
        return Task { await push(account, watched, resumingFrom: pushState) }
    }

    /// Sends a `StateChange` each time a watched type's state moves, until cancelled or the socket closes.
    private func push(_ account: JMAPAccount, _ types: [String], resumingFrom pushState: String?) async {
        let store = service.store
        let watchesSubmissions = types.contains(EventSourceRequest.submissionType)
        let mailTypes = types.filter { $0 != EventSourceRequest.submissionType }
        func current() async throws -> EventSourceState {
            EventSourceState(
                mail: try await store.state(address: account.address),
                submission: watchesSubmissions ? try await service.outbound.ledger.state(accountID: account.id) : nil)
        }
        do {
            // No pushState: changes from now on. A pushState of ours: what changed since. Any other: every state now.
            var sent: EventSourceState? = pushState == nil ? try await current() : pushState.flatMap(EventSourceState.init(id:))
            if var known = sent, known.submission == nil, watchesSubmissions {
                known.submission = try await service.outbound.ledger.state(accountID: account.id)
                sent = known
            }
            // The account's change stream checks the bearer before each element (a `quiet` one at the recheck
            // interval): it ends when the bearer no longer opens the account.
            let stream = store.changeStream(
                of: account.address, quiet: service.configuration.eventSourceRecheck
            ) { [self] in try await stillAuthenticates(account) }
            for try await event in stream where event != .quiet {
                // Read again after a failover rather than closing the client's socket.
                let (now, changed) = try await store.outlastingOutages { [sent] in
                    let now = try await current()
                    return (
                        now,
                        now == sent ? [] : try await service.changedStates(account, since: sent, now: now, mailTypes: mailTypes)
                    )
                }
                guard now != sent else { continue }
                if !changed.isEmpty {
                    send(EventSourceEvent.stateChange(accountID: account.id, changed: changed, pushState: now.id))
                }
                sent = now
            }
        } catch {
            if !Task.isCancelled { fail(error) }
        }
    }

    /// Whether the upgrade's bearer still opens `account`; if not, the socket is closed (1008, or 1011 when the check
    /// could not be made). A database away for a failover is thrown, for the change stream to check again later.
    private func stillAuthenticates(_ account: JMAPAccount) async throws -> Bool {
        do {
            if try await service.authenticate(request, client: context.clientAddress) == account { return true }
            outbound.close(.policyViolation, reason: "token_revoked")
        } catch where MailStore.isOutage(error) {
            throw error
        } catch {
            fail(error)
        }
        return false
    }

    /// Closes the socket after an unforeseen error (reported when it is a defect, not the store's state).
    private func fail(_ error: any Error) {
        let failure = ServiceFailure(error)
        if failure.shouldLog { service.onUnexpectedError(error, context.requestID) }
        outbound.close(.internalError, reason: "")
    }
}
