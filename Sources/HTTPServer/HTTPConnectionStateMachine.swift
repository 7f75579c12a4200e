import HTTP1
import SocketServer

/// The HTTP/1.1 rules of one connection as a pure value: bytes, write progress, timers and answers in; writes,
/// interest changes, timers, closes and work for the request pipeline out. It routes nothing, answers nothing and
/// reads no clock: `HTTPRequestPipeline` takes its `Work` and gives the answers back.
///
/// Requests are parsed as they arrive (pipelining), answered in any order and written in request order. Parsing
/// pauses while `maxPipelinedRequests` are unanswered, while the socket does not take output, or while unsent output
/// is above `outputHighWater`; reading pauses with it (back-pressure). After the last response of a connection
/// (`Connection: close`, HTTP/1.0, a refusal, shutdown) the sending side is shut and the input drained for
/// `lingerNanoseconds` (lingering close), so that unread input does not reset the connection before the peer has
/// read the answer.
///
/// A turn: `handle(_:now:into:)` with the loop's event, then `nextWork()` until nil, each work answered before the
/// next is asked for (`routed(bodyLimit:)`; `answer(_:sequence:requestID:date:)` at once or `awaitAnswer(now:)` and
/// the answer in a later turn; `refuse(with:date:)`), then `finishTurn(after:now:into:)`.
public struct HTTPConnectionStateMachine {
    /// What the machine needs from the request pipeline.
    public enum Work {
        /// A head whose body is still to come: route it and give the body limit with `routed(bodyLimit:)`.
        case head(HTTPRequestHead)
        /// A complete request, with its place in the pipeline: answer it with `answer(_:sequence:requestID:date:)`
        /// now, or say `awaitAnswer(now:)` and answer it in a later turn.
        case request(HTTPRequest, sequence: UInt64)
        /// A refusal the connection ends with (a malformed request, 408, 503 over the connection cap): give its
        /// response with `refuse(with:date:)`. `path` is the path of a head parsed before the refusal, if any.
        case refusal(HTTPStatus, path: String?)
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
        var bytes: [UInt8]?
        var closeAfter: Bool
    }

    /// A refusal asked for and not yet given.
    enum PendingRefusal {
        /// Queued after the responses before it; the connection closes after it.
        case queued(HTTPStatus)
        /// Written at once to a silent client (408), closing after the first write attempt.
        case abandoning
    }

    /// Unsent output above which parsing pauses until the socket takes it.
    public static var outputHighWater: Int { 64 * 1024 }
    /// How long a closing connection drains the peer's bytes before the socket is closed.
    public static var lingerNanoseconds: UInt64 { 2_000_000_000 }

    let configuration: HTTPServerConfiguration
    let encoder: HTTPResponseEncoder
    let headerMemo: HTTPHeaderEncodingMemo?
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
    /// Whether buffered requests may be taken in this turn: after bytes arrived, an answer came or the output
    /// drained.
    private var takesRequests = false
    /// A refusal to ask the pipeline for.
    private var pendingRefusal: PendingRefusal?
    /// Whether the work handed out last is not yet answered.
    private var awaitsAnswer = false
    /// The sequence of the request handed out last, until it is answered at once or said to be answered later.
    private var handedOutSequence: UInt64?
    /// The head handed out whose body is not yet parsed: its path (for a refusal's shape) and what `Expect:
    /// 100-continue` needs.
    private var headInProgress: (path: String, expectsContinue: Bool, contentLength: Int?)?
    /// What the loop was last told, so that only changes become actions.
    private var announcedRead = true
    private var announcedWrite = false
    private var announcedDeadline: UInt64?

    /// Creates the machine of a new connection.
    /// - Parameters:
    ///   - configuration: limits, timeouts and pipelining.
    ///   - encoder: encodes the responses.
    ///   - headerMemo: the loop's memo of the header list it encoded last, or nil for none.
    ///   - refusing: over the connection cap: ask for a 503 at once and close.
    public init(
        configuration: HTTPServerConfiguration, encoder: HTTPResponseEncoder, headerMemo: HTTPHeaderEncodingMemo?,
        refusing: Bool
    ) {
        self.configuration = configuration
        self.encoder = encoder
        self.headerMemo = headerMemo
        parser = HTTPRequestParser(limits: configuration.limits)
        timeouts = ConnectionTimeouts(
            headerRead: configuration.headerReadTimeout, idle: configuration.idleTimeout,
            write: configuration.writeTimeout, now: 0)
        if refusing { pendingRefusal = .queued(.serviceUnavailable) }
    }

    /// Whether the connection is closed: it takes no more events.
    public var isClosed: Bool { phase == .closed }

    /// Whether output waits to be written.
    public var hasUnsentOutput: Bool { !output.isEmpty }

    /// Calls `body` with the output not yet written and returns what it returns.
    public func withUnsentOutput(_ body: (UnsafeRawBufferPointer) throws -> Int?) rethrows -> Int? {
        try output.withUnsentBytes(body)
    }

    // MARK: - Events

    /// Takes one event of the loop (not `.completed`: answers come through `answer`).
    public mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        guard phase != .closed else { return }
        switch event {
        case .opened:
            timeouts = ConnectionTimeouts(
                headerRead: configuration.headerReadTimeout, idle: configuration.idleTimeout,
                write: configuration.writeTimeout, now: now)
        case .bytesRead(let bytes):
            if case .lingering = phase { break }  // draining before close: discard
            guard phase != .abandoning else { break }
            parser.append(bytes)
            takesRequests = true
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
        case .completed:
            return close(into: &actions)  // the pipeline's, never the machine's
        case .shutdown:
            shuttingDown = true
            if slots.isEmpty && output.isEmpty && !parser.hasPartialMessage && phase != .flushingLast {
                if case .lingering = phase { break }
                return close(into: &actions)
            }
        case .reset:
            return close(into: &actions)
        }
    }

    /// Ends a turn: asks for a write of what became ready (except after `.wrote`, when the loop goes on writing by
    /// itself) and tells the loop about changes of interest and deadline.
    public mutating func finishTurn(after event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        guard phase != .closed else { return }
        if case .wrote = event {} else if !output.isEmpty && !writeBlocked { actions.append(.write) }
        announce(now: now, into: &actions)
    }

    // MARK: - Work

    /// The next thing the pipeline must do, or nil when there is nothing until the next event.
    public mutating func nextWork() -> Work? {
        precondition(!awaitsAnswer, "HTTPConnectionStateMachine: the last work was not answered")
        guard phase != .closed else { return nil }
        if let pending = pendingRefusal {
            switch pending {
            case .queued(let status):
                awaitsAnswer = true
                return .refusal(status, path: nil)
            case .abandoning:
                awaitsAnswer = true
                return .refusal(.requestTimeout, path: nil)
            }
        }
        guard takesRequests else { return nil }
        guard
            Self.canTakeRequest(
                phase: phase, writeBlocked: writeBlocked, inFlight: slots.count,
                maxInFlight: configuration.maxPipelinedRequests, unsent: output.unsentCount)
        else {
            takesRequests = false
            return nil
        }
        let next: HTTPParserEvent?
        do {
            next = try parser.next()
        } catch {
            takesRequests = false
            if phase == .serving { phase = .finishing }
            pendingRefusal = .queued(error.status)
            awaitsAnswer = true
            return .refusal(error.status, path: headInProgress?.path)
        }
        // Consumed: the request taken out of it is then its only holder and is changed in place.
        switch consume next {
        case nil:
            takesRequests = false
            return nil
        case .head(let head)?:
            headInProgress = (head.path, head.expectsContinue, head.contentLength)
            awaitsAnswer = true
            return .head(head)
        case .request(let request, let keepAlive)?:
            headInProgress = nil
            if !keepAlive { phase = .finishing }
            let sequence = nextSequence
            nextSequence += 1
            slots.append(
                Slot(
                    sequence: sequence, method: request.method, version: request.version, keepAlive: keepAlive,
                    bytes: nil, closeAfter: !keepAlive))
            handedOutSequence = sequence
            awaitsAnswer = true
            return .request(request, sequence: sequence)
        }
    }

    /// Whether another buffered request may be parsed and handed out now.
    ///
    /// Reads only the fields it needs: as a computed property over `self`, evaluating it inside the parse loop made
    /// the compiler copy the whole machine on every request.
    private static func canTakeRequest(
        phase: Phase, writeBlocked: Bool, inFlight: Int, maxInFlight: Int, unsent: Int
    ) -> Bool {
        guard case .serving = phase else { return false }
        return !writeBlocked && inFlight < maxInFlight && unsent < outputHighWater
    }

    /// The route of the head just handed out allows a body of `bodyLimit` bytes (nil: the parser limits' default);
    /// a client waiting for `100 Continue` is told to send it when the body fits.
    public mutating func routed(bodyLimit: Int?) {
        precondition(awaitsAnswer && headInProgress != nil, "HTTPConnectionStateMachine: no head to route")
        awaitsAnswer = false
        let limit = bodyLimit ?? configuration.limits.maxBodyLength
        parser.setBodyLimit(limit)
        if let head = headInProgress,
            head.expectsContinue && parser.bufferedByteCount == 0
                && (head.contentLength ?? 0) <= limit
        {
            queue(HTTPResponseEncoder.continueResponse, closeAfter: false)
        }
    }

    /// The refusal asked for, as the pipeline renders it; the server adds `Connection: close`.
    public mutating func refuse(with response: HTTPResponse, date: [UInt8]) {
        precondition(awaitsAnswer, "HTTPConnectionStateMachine: no refusal asked for")
        awaitsAnswer = false
        headInProgress = nil
        var bytes: [UInt8] = []
        encoder.encodeRefusal(response, date: date, into: &bytes)
        switch pendingRefusal {
        case .abandoning?:
            output.append(bytes)
            phase = .abandoning
        default:
            if phase == .serving { phase = .finishing }
            queue(bytes, closeAfter: true)
        }
        pendingRefusal = nil
    }

    /// The request just handed out is answered in a later turn: it waits in the pipeline, and no timeout runs while
    /// it is handled.
    public mutating func awaitAnswer(now: UInt64) {
        precondition(handedOutSequence != nil, "HTTPConnectionStateMachine: no request handed out")
        handedOutSequence = nil
        awaitsAnswer = false
        timeouts.enter(.handling, now: now)
    }

    /// Gives back a request once it has been answered, so that its parser reuses its storage when nothing else
    /// holds it.
    public mutating func reclaim(_ request: consuming HTTPRequest) {
        parser.reclaim(request)
    }

    // MARK: - Responses

    /// The response to the request handed out as `sequence`, whenever it is ready: into the output when every earlier
    /// response is there, else kept until they are. Requests held back by the pipeline may be taken again.
    /// - Parameters:
    ///   - requestID: the request's id, sent back as `X-Request-Id` when not empty.
    ///   - date: the `Date` header's bytes.
    public mutating func answer(_ response: HTTPResponse, sequence: UInt64, requestID: String, date: [UInt8]) {
        guard phase != .closed else { return }
        if handedOutSequence == sequence {
            handedOutSequence = nil
            awaitsAnswer = false
        }
        guard let index = slots.firstIndex(where: { $0.sequence == sequence }), slots[index].bytes == nil else {
            return
        }
        takesRequests = true
        let slot = slots[index]
        var keepAlive = slot.keepAlive
        // The server shuts down: the newest request's answer is the last.
        if shuttingDown && index == slots.count - 1 && !parser.hasPartialMessage { keepAlive = false }
        if !keepAlive && phase == .serving { phase = .finishing }
        let context = HTTPResponseEncoder.Context(
            method: slot.method, version: slot.version, keepAlive: keepAlive, requestID: requestID)
        if index == 0 && phase != .flushingLast {
            slots.removeFirst()
            writeOut(response, context, date: date)
            moveReadyResponses()
        } else {
            var bytes: [UInt8] = []
            encoder.encode(response, context: context, date: date, into: &bytes)
            slots[index].bytes = bytes
            if !keepAlive { slots[index].closeAfter = true }
        }
    }

    /// Queues bytes that go out once every earlier response has (a refusal, `100 Continue`).
    private mutating func queue(_ bytes: [UInt8], closeAfter: Bool) {
        let sequence = nextSequence
        nextSequence += 1
        slots.append(
            Slot(
                sequence: sequence, method: .GET, version: .http1_1, keepAlive: !closeAfter, bytes: bytes,
                closeAfter: closeAfter))
        moveReadyResponses()
    }

    /// Encodes the response whose turn it is into the output; after a closing one, nothing more goes out.
    private mutating func writeOut(_ response: HTTPResponse, _ context: HTTPResponseEncoder.Context, date: [UInt8]) {
        let encoder = self.encoder
        let memo = headerMemo
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
        takesRequests = true
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
            pendingRefusal = .abandoning
            return
        }
        close(into: &actions)
    }

    private mutating func close(into actions: inout [ConnectionAction]) {
        phase = .closed
        slots.removeAll()
        output.clear()
        pendingRefusal = nil
        awaitsAnswer = false
        handedOutSequence = nil
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
                !peerClosed && phase == .serving && !writeBlocked && slots.count < configuration.maxPipelinedRequests
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
}
