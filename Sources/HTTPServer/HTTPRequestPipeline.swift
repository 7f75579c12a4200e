import HTTP1
import SocketServer

/// What a server does with the requests of one connection, around its pure `HTTPConnectionStateMachine`: routes each
/// request, gives it its peer address and request id, calls the responder (answering at once in the same turn, or
/// later through a `Job`), writes the access log and tells the responder for its metrics. The machine keeps the
/// protocol (framing, pipelining, back-pressure, timeouts, lingering close); this keeps the server's side, as
/// swift-nio's pipeline handlers and Hummingbird's responder chain sit above their connection state machines.
public struct HTTPRequestPipeline: ConnectionStateMachine {
    /// A request the responder answers later, with its place in the pipeline and the responder's work: a `Job`
    /// (`HTTPAnswer.later`, whose work brings a response back), an `UpgradeJob` (`HTTPAnswer.decideUpgrade`, whose
    /// work brings a decision back) or a `PostponedRequest` (short work put off to the loop's next turn, its route).
    public final class LaterJob<Work: Sendable>: Sendable {
        /// The request's position in the connection's pipeline.
        public let sequence: UInt64
        /// The request being answered, with `remoteAddress` and `requestID` filled in.
        public let request: HTTPRequest
        /// The responder's work: called once with the completion that brings the answer back.
        public let work: Work

        init(sequence: UInt64, request: HTTPRequest, work: Work) {
            self.sequence = sequence
            self.request = request
            self.work = work
        }
    }

    /// A request the responder answers later (`HTTPAnswer.later`).
    public typealias Job = LaterJob<HTTPAnswer.Work>
    /// A request whose protocol switch the responder decides later (`HTTPAnswer.decideUpgrade`).
    public typealias UpgradeJob = LaterJob<HTTPAnswer.UpgradeWork>
    /// A request of a short route (`HTTPRoute.shortWork`) that a turn's budget put off, with its route: `HTTPService`
    /// hands it back to the connection at the loop's next turn (`EventLoop.nextTurn`), where it is answered.
    public typealias PostponedRequest = LaterJob<HTTPRoute>

    /// A request the responder answers through a writer (`HTTPAnswer.stream`), with its place in the pipeline.
    public final class StreamJob: Sendable {
        /// The writer the work answers through.
        public let stream: HTTPResponseStream
        /// The request being answered, with `remoteAddress` and `requestID` filled in.
        public let request: HTTPRequest
        /// The responder's work: called once with the writer.
        public let work: HTTPAnswer.StreamWork

        init(stream: HTTPResponseStream, request: HTTPRequest, work: @escaping HTTPAnswer.StreamWork) {
            self.stream = stream
            self.request = request
            self.work = work
        }
    }

    /// The responder's answer to a `Job`, or its decision on an `UpgradeJob`.
    public final class Completion: Sendable {
        /// The job's `sequence`.
        public let sequence: UInt64
        /// The response (for a switch, its `101` head).
        public let response: HTTPResponse
        /// The switch an `UpgradeJob` decided on; nil: `response` answers and the connection stays HTTP.
        public let upgrade: HTTPUpgrade?
        /// When the responder finished (the loop's clock), for the request's duration; nil: when the pipeline takes
        /// the completion.
        public let finishedAt: UInt64?

        /// Pairs a response with its request's sequence number.
        public init(sequence: UInt64, response: HTTPResponse, upgrade: HTTPUpgrade? = nil, finishedAt: UInt64? = nil) {
            self.sequence = sequence
            self.response = response
            self.upgrade = upgrade
            self.finishedAt = finishedAt
        }
    }

    /// What the access log and the metrics need of a request answered later.
    struct Waiting {
        let sequence: UInt64
        let method: HTTPMethod
        let routeName: String
        let requestID: String
        let startedAt: UInt64

        /// `request`, handed out as `sequence` on `route` in the turn at `now`.
        init(_ request: borrowing HTTPRequest, _ sequence: UInt64, _ route: HTTPRoute, _ now: UInt64) {
            self.sequence = sequence
            method = request.method
            routeName = route.logName
            requestID = request.requestID
            startedAt = now
        }
    }

    let shared: HTTPConnectionShared
    let loopState: HTTPLoopState
    let peer: String
    /// The connection's protocol rules.
    var machine: HTTPConnectionStateMachine
    /// The route found at the head of the request whose body is being read.
    private var routeInProgress: HTTPRoute?
    /// Requests handed to the responder's later work, oldest first.
    private var waiting: [Waiting] = []
    /// Writers handed out and not yet ended, with whether their stream has opened.
    private var streams: [(stream: HTTPResponseStream, opened: Bool)] = []
    /// The sequence and path of the request whose protocol switch is being decided (one at a time: the connection
    /// reads nothing meanwhile), for the shape of the 503 answered when the connection cannot switch any more.
    private var deciding: (sequence: UInt64, path: String)?
    /// The machine of the protocol the connection switched to (`HTTPAnswer.upgrade`): every event goes to it from
    /// the turn of the switch on.
    private var switched: SwitchedMachine?

    /// Creates the pipeline of a new connection from `peer`.
    /// - Parameters:
    ///   - shared: the server's limits, responder and encoder.
    ///   - loopState: the loop's clock, `Date` cache, request ids and access log.
    ///   - peer: the socket peer's IP address as text.
    ///   - refusing: over the connection cap: answer 503 at once and close.
    public init(shared: HTTPConnectionShared, loopState: HTTPLoopState, peer: String, refusing: Bool) {
        self.shared = shared
        self.loopState = loopState
        self.peer = peer
        machine = HTTPConnectionStateMachine(
            configuration: shared.configuration, encoder: shared.encoder, headerMemo: loopState.headerMemo,
            refusing: refusing)
    }

    public var hasUnsentOutput: Bool {
        if let switched { return switched.machine.hasUnsentOutput }
        return machine.hasUnsentOutput
    }

    public func withUnsentOutput(_ body: (UnsafeRawBufferPointer) throws -> Int?) rethrows -> Int? {
        if let switched { return try switched.machine.withUnsentOutput(body) }
        return try machine.withUnsentOutput(body)
    }

    public mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        if let switched { return switched.machine.handle(event, now: now, into: &actions) }
        if case .completed(let value) = event {
            if let completion = value as? Completion {
                complete(completion, now: now)
            } else if let postponed = value as? PostponedRequest {
                resume(postponed, now: now, into: &actions)
            } else if let delivery = value as? HTTPResponseStream.Delivery {
                deliver(delivery, now: now, into: &actions)
            } else {
                machine.handle(.reset, now: now, into: &actions)
            }
        } else {
            machine.handle(event, now: now, into: &actions)
        }
        while let work = machine.nextWork() {
            perform(work, now: now, into: &actions)
        }
        if switched != nil {
            // Switched in this turn: the new protocol starts with the connection as the HTTP machine left it.
            if !streams.isEmpty { endStreams() }
            return switched!.machine.handle(.opened, now: now, into: &actions)
        }
        machine.finishTurn(after: event, now: now, into: &actions)
        if !streams.isEmpty { endStreams() }
    }

    /// A stream writer's message, in the order written.
    private mutating func deliver(
        _ delivery: HTTPResponseStream.Delivery, now: UInt64, into actions: inout [ConnectionAction]
    ) {
        let sequence = delivery.stream.sequence
        switch delivery.message {
        case .response(let response):
            complete(Completion(sequence: sequence, response: response), now: now)
        case .open(let head):
            guard let index = waiting.firstIndex(where: { $0.sequence == sequence }) else { return }
            let request = waiting.remove(at: index)
            report(
                method: request.method, routeName: request.routeName, status: head.status.code,
                requestID: request.requestID, startedAt: request.startedAt, finishedAt: now)
            if let index = streams.firstIndex(where: { $0.stream === delivery.stream }) { streams[index].opened = true }
            machine.openStream(
                head, sequence: sequence, requestID: request.requestID, date: loopState.date(), now: now,
                into: &actions)
        case .bytes(let bytes):
            machine.writeStream(bytes, sequence: sequence, now: now, into: &actions)
        case .finish:
            machine.endStream(sequence, now: now, into: &actions)
        }
    }

    /// Tells the writers whose stream the connection no longer takes (closed, ended, answered) that it ended.
    private mutating func endStreams() {
        let closed = machine.isClosed
        let machine = self.machine
        streams.removeAll { entry in
            let over = closed || entry.stream.hasEnded || (entry.opened && !machine.isStreaming(entry.stream.sequence))
            if over { entry.stream.ended() }
            return over
        }
    }

    /// Does what the machine asks for.
    private mutating func perform(
        _ work: consuming HTTPConnectionStateMachine.Work, now: UInt64, into actions: inout [ConnectionAction]
    ) {
        switch consume work {
        case .head(let head):
            let route = shared.responder.route(method: head.method, path: head.path)
            routeInProgress = route
            machine.routed(bodyLimit: route.bodyLimit)
        case .refusal(let status, let path):
            routeInProgress = nil
            machine.refuse(with: shared.responder.refusal(status, path: path), date: loopState.date())
        case .request(var request, let sequence):
            let route = routeInProgress ?? shared.responder.route(method: request.method, path: request.path)
            routeInProgress = nil
            request.remoteAddress = peer
            request.requestID = Self.sanitizedRequestID(request.headers["X-Request-Id"]) ?? loopState.nextRequestID()
            if route.shortWork && !loopState.takeShortRequest() {
                // The loop's turn has run its share of short work: this request waits for the next turn, after the
                // loop has polled its other connections.
                waiting.append(Waiting(request, sequence, route, now))
                machine.awaitAnswer(now: now)
                actions.append(.perform(PostponedRequest(sequence: sequence, request: request, work: route)))
                return
            }
            switch shared.responder.respond(to: request, route: route) {
            case .now(let response):
                // Answered within this turn: the duration ends after the handler and the encoding, not at the turn's
                // start, and the timeouts restart from then.
                machine.answer(response, sequence: sequence, requestID: request.requestID, date: loopState.date())
                let finished = loopState.clock()
                machine.answerEncoded(now: finished)
                report(
                    method: request.method, routeName: route.logName, status: response.status.code,
                    requestID: request.requestID, startedAt: now, finishedAt: finished)
                machine.reclaim(consume request)
            case .later(let work):
                waiting.append(Waiting(request, sequence, route, now))
                machine.awaitAnswer(now: now)
                actions.append(.perform(Job(sequence: sequence, request: request, work: work)))
            case .upgrade(let upgrade):
                let asked = Waiting(request, sequence, route, now)
                switchProtocols(upgrade, asked, path: request.path, finishedAt: loopState.clock())
            case .decideUpgrade(let work):
                waiting.append(Waiting(request, sequence, route, now))
                machine.awaitUpgradeDecision(now: now)
                deciding = (sequence, request.path)
                actions.append(.perform(UpgradeJob(sequence: sequence, request: request, work: work)))
            case .stream(let work):
                waiting.append(Waiting(request, sequence, route, now))
                machine.awaitAnswer(now: now)
                let stream = HTTPResponseStream(sequence: sequence)
                streams.append((stream, false))
                actions.append(.perform(StreamJob(stream: stream, request: request, work: work)))
            }
        }
    }

    /// A short request put off to this turn: answered now when the turn's budget has room, else put off again. It
    /// waits already (`awaitAnswer`), so a short route's answer is taken as a job's: `.now` answers it, `.later` starts
    /// its work; any other answer is no short route's and is refused 500.
    private mutating func resume(_ postponed: PostponedRequest, now: UInt64, into actions: inout [ConnectionAction]) {
        guard waiting.contains(where: { $0.sequence == postponed.sequence }) else { return }
        guard loopState.takeShortRequest() else { return actions.append(.perform(postponed)) }
        let sequence = postponed.sequence
        switch shared.responder.respond(to: postponed.request, route: postponed.work) {
        case .now(let response):
            complete(Completion(sequence: sequence, response: response, finishedAt: loopState.clock()), now: now)
        case .later(let work):
            actions.append(.perform(Job(sequence: sequence, request: postponed.request, work: work)))
        case .stream, .upgrade, .decideUpgrade:
            let response = shared.responder.refusal(.internalServerError, path: postponed.request.path)
            complete(Completion(sequence: sequence, response: response), now: now)
        }
    }

    /// Switches to `upgrade`'s protocol when the connection still can; else answers 503 and stays HTTP.
    private mutating func switchProtocols(
        _ upgrade: HTTPUpgrade, _ request: Waiting, path: String, finishedAt: UInt64
    ) {
        let date = loopState.date()
        if let handed = machine.switchProtocols(
            upgrade.response, sequence: request.sequence, requestID: request.requestID, date: date)
        {
            report(
                method: request.method, routeName: request.routeName, status: upgrade.response.status.code,
                requestID: request.requestID, startedAt: request.startedAt, finishedAt: finishedAt)
            switched = SwitchedMachine(
                upgrade.makeMachine(HTTPUpgradeHandoff(lifecycle: handed.lifecycle, input: handed.input, peer: peer)))
        } else {
            let response = shared.responder.refusal(.serviceUnavailable, path: path)
            report(
                method: request.method, routeName: request.routeName, status: response.status.code,
                requestID: request.requestID, startedAt: request.startedAt, finishedAt: finishedAt)
            machine.answer(response, sequence: request.sequence, requestID: request.requestID, date: date)
        }
    }

    /// A job's response: logged, reported and handed to the machine; or the switch an upgrade job decided on.
    private mutating func complete(_ completion: Completion, now: UInt64) {
        guard let index = waiting.firstIndex(where: { $0.sequence == completion.sequence }) else { return }
        let request = waiting.remove(at: index)
        if deciding?.sequence == completion.sequence {
            let path = deciding?.path ?? ""
            deciding = nil
            if let upgrade = completion.upgrade {
                return switchProtocols(upgrade, request, path: path, finishedAt: completion.finishedAt ?? now)
            }
        }
        report(
            method: request.method, routeName: request.routeName, status: completion.response.status.code,
            requestID: request.requestID, startedAt: request.startedAt, finishedAt: completion.finishedAt ?? now)
        machine.answer(
            completion.response, sequence: completion.sequence, requestID: request.requestID, date: loopState.date())
        machine.answerEncoded(now: loopState.clock())
    }

    /// Writes the access-log line of an answered request and tells the responder, for its metrics.
    private func report(
        method: HTTPMethod, routeName: String, status: Int, requestID: String, startedAt: UInt64, finishedAt: UInt64
    ) {
        let entry = HTTPAccessLog.Entry(
            method: method, route: routeName, status: status,
            durationNanoseconds: finishedAt >= startedAt ? finishedAt - startedAt : 0, requestID: requestID)
        if loopState.logsAccess { loopState.logAccess(entry) }
        shared.responder.answered(entry, loop: loopState.index)
    }

    /// The client's `X-Request-Id` when it is 1 to 128 safe characters, else nil.
    static func sanitizedRequestID(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 128 else { return nil }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: ":"):
                continue
            default:
                return nil
            }
        }
        return value
    }
}

/// The machine a connection switched to, behind one reference: every connection's pipeline carries the field, so an
/// ordinary request pays one word and a nil check for it, not an inline existential container.
private final class SwitchedMachine {
    var machine: any ConnectionStateMachine

    init(_ machine: any ConnectionStateMachine) {
        self.machine = machine
    }
}
