import HTTP1
import SocketServer

/// The HTTP/1.1 rules of one connection as a pure state machine: bytes, write progress, timers and
/// responses in; writes, interest changes, timers, requests to answer and closes out.
///
/// Requests are parsed as they arrive (pipelining), answered in any order by the responder and
/// written in request order. Parsing pauses while `maxPipelinedRequests` are unanswered, while the
/// socket does not take output, or while unsent output is above `outputHighWater`; reading pauses
/// with it (back-pressure). After the last response of a connection (`Connection: close`, HTTP/1.0,
/// a refusal, shutdown) the sending side is shut and the input drained for `lingerNanoseconds`
/// (lingering close), so that unread input does not reset the connection before the peer has read
/// the answer.
public struct HTTPConnectionStateMachine: ConnectionStateMachine {
    /// A request the responder answers later (`HTTPAnswer.later`), with its place in the pipeline.
    public final class Job: Sendable {
        /// The request's position in the connection's pipeline.
        public let sequence: UInt64
        /// The request being answered, with `remoteAddress` and `requestID` filled in.
        public let request: HTTPRequest
        /// The responder's work: called once with the completion that brings the response back.
        public let work: HTTPAnswer.Work

        init(sequence: UInt64, request: HTTPRequest, work: @escaping HTTPAnswer.Work) {
            self.sequence = sequence
            self.request = request
            self.work = work
        }
    }

    /// The responder's answer to a `Job`.
    public final class Completion: Sendable {
        /// The job's `sequence`.
        public let sequence: UInt64
        /// The response.
        public let response: HTTPResponse
        /// When the responder finished (the loop's clock), for the request's duration; nil: when the machine takes
        /// the completion.
        public let finishedAt: UInt64?

        /// Pairs a response with its request's sequence number.
        public init(sequence: UInt64, response: HTTPResponse, finishedAt: UInt64? = nil) {
            self.sequence = sequence
            self.response = response
            self.finishedAt = finishedAt
        }
    }

    /// Where the connection is in its life.
    enum Phase: Equatable {
        /// Taking requests.
        case serving
        /// Taking no new requests (close requested, refusal, input ended); answering the ones taken.
        case finishing
        /// The last response is in the output; once written, linger.
        case flushingLast
        /// Our side is shut; input is drained until the peer closes or the linger deadline.
        case lingering(until: UInt64)
        /// A best-effort refusal (408) is being written; close after the first write attempt.
        case abandoning
        /// Closed; no more events.
        case closed
    }

    /// A response position in the pipeline, filled when its response is encoded.
    struct Slot {
        let sequence: UInt64
        let method: HTTPMethod
        let version: HTTPVersion
        let keepAlive: Bool
        let requestID: String
        /// The route's name in the access log; nil for bytes the server queues itself.
        let routeName: String?
        /// When the request was handed to the responder.
        let startedAt: UInt64
        var bytes: [UInt8]?
        var closeAfter: Bool
    }

    /// Unsent output above which parsing pauses until the socket takes it.
    public static var outputHighWater: Int { 64 * 1024 }
    /// How long a closing connection drains the peer's bytes before the socket is closed.
    public static var lingerNanoseconds: UInt64 { 2_000_000_000 }

    let shared: HTTPConnectionShared
    let loopState: HTTPLoopState
    let peer: String
    let refusing: Bool
    var parser: HTTPRequestParser
    var timeouts: ConnectionTimeouts
    var output = OutputBuffer()
    var slots: [Slot] = []
    var nextSequence: UInt64 = 0
    private(set) var phase = Phase.serving
    /// The peer shut its sending side: answer what was asked, then close.
    private(set) var peerClosed = false
    /// The socket took no more output; waiting for `writable`.
    private(set) var writeBlocked = false
    /// The server is shutting down: the last response closes the connection.
    private(set) var shuttingDown = false
    /// The path of a request whose head was parsed and whose body was not, for the shape of a refusal.
    private var pathInProgress: String?
    /// The route found at that request's head, which decided its body limit and answers it once the body is in.
    private var routeInProgress: HTTPRoute?
    /// What the loop was last told, so that only changes become actions.
    private var announcedRead = true
    private var announcedWrite = false
    private var announcedDeadline: UInt64?

    /// Creates the machine of a new connection from `peer`.
    /// - Parameters:
    ///   - shared: the server's limits, responder and encoder.
    ///   - loopState: the loop's `Date` cache and request ids.
    ///   - peer: the socket peer's IP address as text.
    ///   - refusing: over the connection cap: answer 503 at once and close.
    public init(shared: HTTPConnectionShared, loopState: HTTPLoopState, peer: String, refusing: Bool) {
        self.shared = shared
        self.loopState = loopState
        self.peer = peer
        self.refusing = refusing
        let configuration = shared.configuration
        parser = HTTPRequestParser(limits: configuration.limits)
        timeouts = ConnectionTimeouts(
            headerRead: configuration.headerReadTimeout, idle: configuration.idleTimeout,
            write: configuration.writeTimeout, now: 0)
    }

    public var hasUnsentOutput: Bool { !output.isEmpty }

    public func withUnsentOutput(_ body: (UnsafeRawBufferPointer) throws -> Int?) rethrows -> Int? {
        try output.withUnsentBytes(body)
    }

    public mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        guard phase != .closed else { return }
        switch event {
        case .opened:
            timeouts = ConnectionTimeouts(
                headerRead: shared.configuration.headerReadTimeout, idle: shared.configuration.idleTimeout,
                write: shared.configuration.writeTimeout, now: now)
            if refusing { refuse(.serviceUnavailable) }
        case .bytesRead(let bytes):
            if case .lingering = phase { break }  // draining before close: discard
            guard phase != .abandoning else { break }
            parser.append(bytes)
            takeRequests(now: now, into: &actions)
        case .readEOF:
            peerClosed = true
            if case .lingering = phase { return close(into: &actions) }
            if phase == .serving { phase = .finishing }  // a partial request can never finish now
            if slots.isEmpty && output.isEmpty { return close(into: &actions) }
        case .wrote(let count):
            output.consume(count)
            writeBlocked = false
            if phase == .abandoning { return close(into: &actions) }
            if timeouts.wait == .writing { timeouts.enter(.writing, now: now) }  // progress restarts it
            if output.isEmpty { outputDrained(now: now, into: &actions) }
        case .writeBlocked:
            if phase == .abandoning { return close(into: &actions) }
            if !writeBlocked {
                writeBlocked = true
                timeouts.enter(.writing, now: now)
            }
        case .writable:
            writeBlocked = false
        case .timerFired:
            timerFired(now: now, into: &actions)
        case .completed(let value):
            guard let completion = value as? Completion else { return close(into: &actions) }
            complete(completion, now: now, into: &actions)
        case .shutdown:
            shuttingDown = true
            if slots.isEmpty && output.isEmpty && !parser.hasPartialMessage && phase != .flushingLast {
                if case .lingering = phase { break }
                return close(into: &actions)
            }
        case .reset:
            return close(into: &actions)
        }
        guard phase != .closed else { return }
        // After `wrote`, the loop goes on writing by itself.
        if case .wrote = event {} else if !output.isEmpty && !writeBlocked { actions.append(.write) }
        announce(now: now, into: &actions)
    }

    // MARK: - Requests

    /// Whether another buffered request may be parsed and dispatched now.
    ///
    /// Reads only the fields it needs: as a computed property over `self`, evaluating it inside the
    /// parse loop made the compiler copy the whole machine on every request.
    private static func canTakeRequest(
        phase: Phase, writeBlocked: Bool, inFlight: Int, maxInFlight: Int, unsent: Int
    ) -> Bool {
        guard case .serving = phase else { return false }
        return !writeBlocked && inFlight < maxInFlight && unsent < outputHighWater
    }

    /// Parses and dispatches as many buffered requests as the pipeline allows.
    private mutating func takeRequests(now: UInt64, into actions: inout [ConnectionAction]) {
        let maxInFlight = shared.configuration.maxPipelinedRequests
        while Self.canTakeRequest(
            phase: phase, writeBlocked: writeBlocked, inFlight: slots.count, maxInFlight: maxInFlight,
            unsent: output.unsentCount)
        {
            let next: HTTPParserEvent?
            do {
                next = try parser.next()
            } catch {
                refuse(error.status)
                return
            }
            // Consumed: the request taken out of it is then its only holder and is changed in place.
            switch consume next {
            case nil:
                return
            case .head(let head)?:
                let path = head.path
                let route = shared.responder.route(method: head.method, path: path)
                pathInProgress = path
                routeInProgress = route
                let limit = route.bodyLimit ?? shared.configuration.limits.maxBodyLength
                parser.setBodyLimit(limit)
                if head.expectsContinue && parser.bufferedByteCount == 0 && (head.contentLength ?? 0) <= limit {
                    queue(HTTPResponseEncoder.continueResponse, closeAfter: false)
                }
            case .request(var request, let keepAlive)?:
                let route = routeInProgress ?? shared.responder.route(method: request.method, path: request.path)
                pathInProgress = nil
                routeInProgress = nil
                request.remoteAddress = peer
                request.requestID =
                    Self.sanitizedRequestID(request.headers["X-Request-Id"]) ?? loopState.nextRequestID()
                if !keepAlive { phase = .finishing }
                let sequence = nextSequence
                nextSequence += 1
                let slot = Slot(
                    sequence: sequence, method: request.method, version: request.version, keepAlive: keepAlive,
                    requestID: request.requestID, routeName: route.logName, startedAt: now, bytes: nil,
                    closeAfter: !keepAlive)
                switch shared.responder.respond(to: request, route: route) {
                case .now(let response):
                    // Answered within this turn: the duration ends after the handler, not at the turn's start.
                    let finished = loopState.clock()
                    if slots.isEmpty {
                        // Nothing waits before it: straight into the output, with no pipeline slot filled and emptied.
                        writeOut(response, prepare(response, for: slot, finishedAt: finished, newest: true))
                    } else {
                        slots.append(slot)
                        deliver(response, finishedAt: finished, at: slots.count - 1)
                    }
                    parser.reclaim(consume request)
                case .later(let work):
                    slots.append(slot)
                    timeouts.enter(.handling, now: now)
                    actions.append(.perform(Job(sequence: sequence, request: request, work: work)))
                }
            }
        }
    }

    /// Queues a bodiless refusal and takes no more requests; the connection closes after it.
    private mutating func refuse(_ status: HTTPStatus) {
        if phase == .serving { phase = .finishing }
        var bytes: [UInt8] = []
        shared.encoder.encodeRefusal(
            shared.responder.refusal(status, path: pathInProgress), date: loopState.date(), into: &bytes)
        pathInProgress = nil
        routeInProgress = nil
        queue(bytes, closeAfter: true)
    }

    /// Queues bytes that go out once every earlier response has (a refusal, `100 Continue`).
    private mutating func queue(_ bytes: [UInt8], closeAfter: Bool) {
        let sequence = nextSequence
        nextSequence += 1
        slots.append(
            Slot(
                sequence: sequence, method: .GET, version: .http1_1, keepAlive: !closeAfter, requestID: "",
                routeName: nil, startedAt: 0, bytes: bytes, closeAfter: closeAfter))
        moveReadyResponses()
    }

    // MARK: - Responses

    /// A completion of a job: its response takes its slot, and requests held back by the pipeline are taken.
    private mutating func complete(_ completion: Completion, now: UInt64, into actions: inout [ConnectionAction]) {
        guard let index = slots.firstIndex(where: { $0.sequence == completion.sequence }), slots[index].bytes == nil
        else { return }
        deliver(completion.response, finishedAt: completion.finishedAt ?? now, at: index)
        takeRequests(now: now, into: &actions)
    }

    /// Encodes the response of the request in `slots[index]`: into the output when every earlier response is
    /// there, else into the slot until they are.
    private mutating func deliver(_ response: HTTPResponse, finishedAt finished: UInt64, at index: Int) {
        let slot = slots[index]
        let context = prepare(response, for: slot, finishedAt: finished, newest: index == slots.count - 1)
        if index == 0 && phase != .flushingLast {
            slots.removeFirst()
            writeOut(response, context)
            moveReadyResponses()
        } else {
            var bytes: [UInt8] = []
            shared.encoder.encode(response, context: context, date: loopState.date(), into: &bytes)
            slots[index].bytes = bytes
            if !context.keepAlive { slots[index].closeAfter = true }
        }
    }

    /// Logs the answer to `slot`'s request, tells the responder, and decides whether the connection stays open
    /// after it (not when the request said so, nor for the `newest` request while the server shuts down); the
    /// encoder's context.
    private mutating func prepare(_ response: HTTPResponse, for slot: Slot, finishedAt finished: UInt64, newest: Bool)
        -> HTTPResponseEncoder.Context
    {
        if let routeName = slot.routeName {
            let entry = HTTPAccessLog.Entry(
                method: slot.method, route: routeName, status: response.status.code,
                durationNanoseconds: finished >= slot.startedAt ? finished - slot.startedAt : 0,
                requestID: slot.requestID)
            if loopState.logsAccess { loopState.logAccess(entry) }
            shared.responder.answered(entry, loop: loopState.index)
        }
        var keepAlive = slot.keepAlive
        if shuttingDown && newest && !parser.hasPartialMessage { keepAlive = false }
        if !keepAlive && phase == .serving { phase = .finishing }
        return HTTPResponseEncoder.Context(
            method: slot.method, version: slot.version, keepAlive: keepAlive, requestID: slot.requestID)
    }

    /// Encodes the response whose turn it is into the output; after a closing one, nothing more goes out.
    private mutating func writeOut(_ response: HTTPResponse, _ context: HTTPResponseEncoder.Context) {
        let encoder = shared.encoder
        let date = loopState.date()
        let memo = loopState.headerMemo
        output.withAppendableRoom(atMost: encoder.maximumLength(response, context: context, date: date, memo: memo)) {
            encoder.write(response, context: context, date: date, memo: memo, into: $0)
        }
        if !context.keepAlive { phase = .flushingLast }
    }

    /// Moves responses that are ready, in request order, into the output.
    private mutating func moveReadyResponses() {
        while phase != .flushingLast, let first = slots.first, let bytes = first.bytes {
            output.append(bytes)
            slots.removeFirst()
            if first.closeAfter { phase = .flushingLast }
        }
    }

    /// Everything queued was written.
    private mutating func outputDrained(now: UInt64, into actions: inout [ConnectionAction]) {
        if phase == .flushingLast {
            // The last response is out: shut our side and drain until the peer closes.
            if peerClosed { return close(into: &actions) }
            phase = .lingering(until: now &+ Self.lingerNanoseconds)
            actions.append(.shutdownWrite)
            return
        }
        if slots.isEmpty && (peerClosed || (shuttingDown && !parser.hasPartialMessage)) {
            return close(into: &actions)
        }
        takeRequests(now: now, into: &actions)
    }

    // MARK: - Timers and closing

    private mutating func timerFired(now: UInt64, into actions: inout [ConnectionAction]) {
        if case .lingering(let until) = phase {
            if now >= until { close(into: &actions) }
            return
        }
        guard timeouts.isExpired(now: now) else { return }
        if timeouts.wait == .readingRequest && slots.isEmpty && output.isEmpty {
            // Tell a slow client why, without waiting for it to read.
            var bytes: [UInt8] = []
            shared.encoder.encodeRefusal(
                shared.responder.refusal(.requestTimeout, path: nil), date: loopState.date(), into: &bytes)
            output.append(bytes)
            phase = .abandoning
            return
        }
        close(into: &actions)
    }

    private mutating func close(into actions: inout [ConnectionAction]) {
        phase = .closed
        slots.removeAll()
        output.clear()
        actions.append(.close)
    }

    /// Tells the loop about changes of interest and deadline.
    private mutating func announce(now: UInt64, into actions: inout [ConnectionAction]) {
        let read: Bool
        let deadline: UInt64?
        switch phase {
        case .lingering(let until):
            read = true
            deadline = until
        case .abandoning:
            read = false
            deadline = nil
        default:
            read =
                !peerClosed && phase == .serving && !writeBlocked
                && slots.count < shared.configuration.maxPipelinedRequests
            updateWait(now: now)
            deadline = timeouts.deadline
        }
        if read != announcedRead || writeBlocked != announcedWrite {
            announcedRead = read
            announcedWrite = writeBlocked
            actions.append(.setInterest(read: read, write: writeBlocked))
        }
        if deadline != announcedDeadline {
            announcedDeadline = deadline
            actions.append(deadline.map { .armTimer(deadline: $0) } ?? .cancelTimer)
        }
    }

    /// Tells the timeouts what the connection now waits for.
    private mutating func updateWait(now: UInt64) {
        if !output.isEmpty {
            return  // `.writing` is entered when the socket blocks, and restarted on progress
        } else if !slots.isEmpty {
            timeouts.enter(.handling, now: now)
        } else if parser.hasPartialMessage {
            timeouts.enter(.readingRequest, now: now)
        } else {
            timeouts.enter(.idle, now: now)
        }
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
