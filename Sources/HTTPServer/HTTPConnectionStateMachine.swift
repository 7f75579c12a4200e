import HTTP1
import SocketServer

/// The HTTP/1.1 rules of one connection as a pure value: bytes, write progress, timers and answers in; writes,
/// interest changes, timers, closes and work for the request pipeline out. It routes nothing, answers nothing and
/// reads no clock: `HTTPRequestPipeline` takes its `Work` and gives the answers back.
///
/// Requests are parsed as they arrive (pipelining), answered in any order and written in request order. Parsing
/// pauses while `maxPipelinedRequests` are unanswered, and while the connection's `ConnectionLifecycle` takes no
/// input (the socket does not take output, or unsent output is above its high-water mark); reading pauses with it
/// (back-pressure). After the last response of a connection (`Connection: close`, HTTP/1.0, a refusal, shutdown)
/// the lifecycle closes it lingering, so that unread input does not reset the connection before the peer has read
/// the answer.
///
/// A turn: `handle(_:now:into:)` with the loop's event, then `nextWork()` until nil, each work answered before the
/// next is asked for (`routed(bodyLimit:)`; `answer(_:sequence:requestID:date:)` at once or `awaitAnswer(now:)` and
/// the answer in a later turn; `refuse(with:date:)`), then `finishTurn(after:now:into:)`.
///
/// An open-ended response (`openStream(_:sequence:requestID:date:)`) is the connection's last: its head has no
/// `Content-Length`, requests after it are not answered, what the client sends meanwhile is discarded (its end
/// closes the connection), no idle timeout runs while it lasts, and it ends with the connection: on HTTP/1.1 its body
/// is chunked (one chunk a write, so a client sees each event as it is written, the last chunk at its end), on
/// HTTP/1.0 close-delimited. It ends on `endStream`, the client's end, shutdown, a write stalled past the write
/// timeout, or unsent stream bytes above `maxStreamBufferedBytes` (the reader fell behind: the stream ends rather than
/// grow the output).
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

    let configuration: HTTPServerConfiguration
    let encoder: HTTPResponseEncoder
    let headerMemo: HTTPHeaderEncodingMemo?
    var parser: HTTPRequestParser
    var timeouts: ConnectionTimeouts
    /// Output, back-pressure, the peer's end of input and the lingering close.
    var lifecycle = ConnectionLifecycle()
    var slots: [Slot] = []
    var nextSequence: UInt64 = 0
    /// Whether new requests are taken: not after a close was asked for, a refusal, or the end of the input (the ones
    /// taken are still answered).
    private(set) var takesNewRequests = true
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
    /// The sequence of the open-ended response being written, until it ends.
    private(set) var streamSequence: UInt64?
    /// Whether the open stream's writes go out as chunks (`HTTPChunkedBody`), its end as the last chunk.
    private var streamChunked = false
    /// The sequence of a request whose protocol switch is being decided (`awaitUpgradeDecision(now:)`): until it is
    /// answered or switched, nothing more is read or parsed, so that the bytes after it are the new protocol's.
    private(set) var upgradeSequence: UInt64?
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
    public var isClosed: Bool { lifecycle.isClosed }

    /// The output queued for the socket.
    var output: OutputBuffer { lifecycle.output }

    /// Whether output waits to be written.
    public var hasUnsentOutput: Bool { !lifecycle.output.isEmpty }

    /// Whether the connection takes requests now (open, and none of them asked to close it).
    private var isServing: Bool { takesNewRequests && lifecycle.stage == .open }

    /// Calls `body` with the output not yet written and returns what it returns.
    public func withUnsentOutput(_ body: (UnsafeRawBufferPointer) throws -> Int?) rethrows -> Int? {
        try lifecycle.output.withUnsentBytes(body)
    }

    // MARK: - Events

    /// Takes one event of the loop (not `.completed`: answers come through `answer`).
    public mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        guard !lifecycle.isClosed else { return }
        switch event {
        case .opened:
            timeouts = ConnectionTimeouts(
                headerRead: configuration.headerReadTimeout, idle: configuration.idleTimeout,
                write: configuration.writeTimeout, now: now)
        case .bytesRead(let bytes):
            // Draining before close, or abandoning: discarded.
            // While a stream is written, the client's bytes are never parsed.
            guard lifecycle.stage != .abandoning && !lifecycle.isLingering && streamSequence == nil else { break }
            parser.append(bytes)
            takesRequests = true
        case .readEOF:
            if lifecycle.peerDidClose(into: &actions) { return close(into: &actions) }
            takesNewRequests = false  // a partial request can never finish now
            if slots.isEmpty && lifecycle.output.isEmpty { return close(into: &actions) }
        case .wrote(let count):
            let drained = lifecycle.didWrite(count)
            if lifecycle.stage == .abandoning { return close(into: &actions) }
            timeouts.progressed(now: now)  // restarts the write clock, and idle from the last answer
            if drained { outputDrained(now: now, into: &actions) }
        case .writeBlocked:
            if lifecycle.stage == .abandoning { return close(into: &actions) }
            if lifecycle.didBlock() { timeouts.enter(.writing, now: now) }
        case .writable:
            lifecycle.becameWritable()
        case .timerFired:
            timerFired(now: now, into: &actions)
        case .completed:
            return close(into: &actions)  // the pipeline's, never the machine's
        case .shutdown:
            shuttingDown = true
            if let sequence = streamSequence { endStream(sequence, now: now, into: &actions) }
            if slots.isEmpty && lifecycle.output.isEmpty && !parser.hasPartialMessage
                && lifecycle.stage != .closingAfterOutput && !lifecycle.isLingering
            {
                return close(into: &actions)
            }
        case .reset:
            return close(into: &actions)
        }
    }

    /// Ends a turn: asks for a write of what became ready (except after `.wrote`, when the loop goes on writing by
    /// itself) and tells the loop about changes of interest and deadline.
    public mutating func finishTurn(after event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        guard !lifecycle.isClosed else { return }
        let read =
            !lifecycle.peerClosed && (isServing || streamSequence != nil) && upgradeSequence == nil
            && !lifecycle.writeBlocked && slots.count < configuration.maxPipelinedRequests
        switch lifecycle.stage {
        case .open, .closingAfterOutput: updateWait(now: now)
        case .abandoning, .lingering, .closed: break
        }
        lifecycle.finishTurn(after: event, read: read, deadline: timeouts.deadline, into: &actions)
    }

    // MARK: - Work

    /// The next thing the pipeline must do, or nil when there is nothing until the next event.
    public mutating func nextWork() -> Work? {
        precondition(!awaitsAnswer, "HTTPConnectionStateMachine: the last work was not answered")
        guard !lifecycle.isClosed else { return nil }
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
        guard isServing && upgradeSequence == nil && lifecycle.takesInput
            && slots.count < configuration.maxPipelinedRequests
        else {
            takesRequests = false
            return nil
        }
        let next: HTTPParserEvent?
        do {
            next = try parser.next()
        } catch {
            takesRequests = false
            takesNewRequests = false
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
            if !keepAlive { takesNewRequests = false }
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
            lifecycle.abandon(after: bytes)
        default:
            takesNewRequests = false
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

    /// The request just handed out asks to switch protocols and the decision comes in a later turn: as
    /// `awaitAnswer(now:)`, and until it is answered (`answer`, the connection stays HTTP) or switched
    /// (`switchProtocols`), the connection reads and parses nothing more.
    public mutating func awaitUpgradeDecision(now: UInt64) {
        upgradeSequence = handedOutSequence
        awaitAnswer(now: now)
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
        guard !lifecycle.isClosed else { return }
        if handedOutSequence == sequence {
            handedOutSequence = nil
            awaitsAnswer = false
        }
        if upgradeSequence == sequence { upgradeSequence = nil }
        guard let index = slots.firstIndex(where: { $0.sequence == sequence }), slots[index].bytes == nil else {
            return
        }
        takesRequests = true
        let context = context(slots[index], newest: index == slots.count - 1, requestID: requestID)
        if index == 0 && lifecycle.stage != .closingAfterOutput {
            slots.removeFirst()
            writeOut(response, context, date: date)
            moveReadyResponses()
        } else {
            var bytes: [UInt8] = []
            encoder.encode(response, context: context, date: date, into: &bytes)
            slots[index].bytes = bytes
            if !context.keepAlive { slots[index].closeAfter = true }
        }
    }

    /// The answer just given was encoded by `now` (the loop's clock read after `answer`): the connection's timeouts
    /// restart from then. A large answer encoded in a starved turn is written with the turn's older `now`; without
    /// this, its write timeout, or the idle timeout after it, counted from before it was built and could close the
    /// connection at once after the answer went out.
    public mutating func answerEncoded(now: UInt64) {
        timeouts.progressed(now: now)
    }

    /// The encoder's context for `slot`'s response, deciding whether the connection stays open after it: not when
    /// the request said so, nor for the `newest` request while the server shuts down.
    private mutating func context(_ slot: Slot, newest: Bool, requestID: String) -> HTTPResponseEncoder.Context {
        var keepAlive = slot.keepAlive
        if shuttingDown && newest && !parser.hasPartialMessage { keepAlive = false }
        if !keepAlive { takesNewRequests = false }
        return HTTPResponseEncoder.Context(
            method: slot.method, version: slot.version, keepAlive: keepAlive, requestID: requestID)
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
        let most = encoder.maximumLength(response, context: context, date: date, memo: memo)
        lifecycle.output.withAppendableRoom(atMost: most) {
            encoder.write(response, context: context, date: date, memo: memo, into: $0)
        }
        if !context.keepAlive { lifecycle.closeAfterOutput() }
    }

    /// Moves responses that are ready, in request order, into the output.
    private mutating func moveReadyResponses() {
        while lifecycle.stage != .closingAfterOutput, let first = slots.first, let bytes = first.bytes {
            lifecycle.output.append(bytes)
            slots.removeFirst()
            if first.closeAfter { lifecycle.closeAfterOutput() }
        }
    }

    /// Everything queued was written.
    private mutating func outputDrained(now: UInt64, into actions: inout [ConnectionAction]) {
        if lifecycle.stage == .closingAfterOutput {
            // The last response is out: shut our side and drain until the peer closes.
            if lifecycle.peerClosed { return close(into: &actions) }
            return lifecycle.linger(now: now, into: &actions)
        }
        if slots.isEmpty && (lifecycle.peerClosed || (shuttingDown && !parser.hasPartialMessage)) {
            return close(into: &actions)
        }
        takesRequests = true
    }

    // MARK: - Switching protocols

    /// Answers the request handed out as `sequence` with a `101 Switching Protocols` head and hands the connection
    /// over: its lifecycle (the head queued first in its output) and the bytes read after the request. The machine
    /// is spent afterwards: it takes no event, asks for no work and writes nothing. Returns nil, changing nothing,
    /// when the connection cannot switch: other requests are in flight or answered and unwritten, the server is
    /// shutting down, or the client has closed its side.
    public mutating func switchProtocols(
        _ response: HTTPResponse, sequence: UInt64, requestID: String, date: [UInt8]
    ) -> (lifecycle: ConnectionLifecycle, input: [UInt8])? {
        guard lifecycle.stage == .open, !shuttingDown, !lifecycle.peerClosed, slots.count == 1,
            slots[0].sequence == sequence, slots[0].bytes == nil, pendingRefusal == nil
        else { return nil }
        if handedOutSequence == sequence {
            handedOutSequence = nil
            awaitsAnswer = false
        }
        upgradeSequence = nil
        var head: [UInt8] = []
        encoder.encodeSwitchingProtocols(response, requestID: requestID, date: date, into: &head)
        lifecycle.output.append(head)
        let handed = lifecycle
        let input = parser.takeUnparsedBytes()
        // Spent: closed as far as this machine knows, without a `.close` action (the socket lives on).
        lifecycle = ConnectionLifecycle()
        var ignored: [ConnectionAction] = []
        lifecycle.close(into: &ignored)
        slots.removeAll()
        takesNewRequests = false
        takesRequests = false
        return (handed, input)
    }

    // MARK: - Open-ended responses

    /// Whether the stream opened for `sequence` still takes bytes.
    public func isStreaming(_ sequence: UInt64) -> Bool {
        streamSequence == sequence && !lifecycle.isClosed
    }

    /// Opens an open-ended response to the request handed out as `sequence` (answered later): its head goes out
    /// without `Content-Length` and with `Connection: close` once every earlier response has; requests after it
    /// are dropped unanswered and no new ones are taken. For `HEAD`, and during shutdown, it ends at once after its
    /// head.
    public mutating func openStream(
        _ head: HTTPResponse, sequence: UInt64, requestID: String, date: [UInt8], now: UInt64,
        into actions: inout [ConnectionAction]
    ) {
        guard !lifecycle.isClosed, streamSequence == nil,
            let index = slots.firstIndex(where: { $0.sequence == sequence }), slots[index].bytes == nil
        else { return }
        takesNewRequests = false
        slots.removeSubrange((index + 1)...)
        let slot = slots[index]
        var bytes: [UInt8] = []
        let context = HTTPResponseEncoder.Context(
            method: slot.method, version: slot.version, keepAlive: false, requestID: requestID)
        encoder.encodeOpenEnded(head, context: context, date: date, into: &bytes)
        slots[index].bytes = bytes
        slots[index].closeAfter = false
        streamSequence = sequence
        streamChunked = HTTPResponseEncoder.chunksOpenEnded(context) && slot.method != .HEAD
        moveReadyResponses()
        if shuttingDown || slot.method == .HEAD { endStream(sequence, now: now, into: &actions) }
    }

    /// Appends `bytes` to the stream opened for `sequence`; ends it instead when its unsent bytes would pass
    /// `maxStreamBufferedBytes`.
    public mutating func writeStream(
        _ bytes: [UInt8], sequence: UInt64, now: UInt64, into actions: inout [ConnectionAction]
    ) {
        guard isStreaming(sequence), !bytes.isEmpty else { return }
        let bytes = streamChunked ? HTTPChunkedBody.chunk(bytes) : bytes
        let limit = configuration.maxStreamBufferedBytes
        if let index = slots.firstIndex(where: { $0.sequence == sequence }) {
            // Its head still waits for the responses before it.
            guard (slots[index].bytes?.count ?? 0) + bytes.count <= limit else {
                return endStream(sequence, now: now, into: &actions)
            }
            slots[index].bytes?.append(contentsOf: bytes)
        } else {
            guard lifecycle.output.unsentCount + bytes.count <= limit else {
                return endStream(sequence, now: now, into: &actions)
            }
            lifecycle.output.append(bytes)
        }
    }

    /// Ends the stream opened for `sequence` (with its last chunk when chunked): the connection closes once its bytes
    /// are written.
    public mutating func endStream(_ sequence: UInt64, now: UInt64, into actions: inout [ConnectionAction]) {
        guard isStreaming(sequence) else { return }
        streamSequence = nil
        if let index = slots.firstIndex(where: { $0.sequence == sequence }) {
            if streamChunked { slots[index].bytes?.append(contentsOf: HTTPChunkedBody.lastChunk) }
            slots[index].closeAfter = true
        } else {
            if streamChunked { lifecycle.output.append(HTTPChunkedBody.lastChunk) }
            lifecycle.closeAfterOutput()
            if lifecycle.output.isEmpty { lifecycle.linger(now: now, into: &actions) }
        }
    }

    // MARK: - Timers and closing

    private mutating func timerFired(now: UInt64, into actions: inout [ConnectionAction]) {
        if lifecycle.lingerTimerFired(now: now, into: &actions) {
            if lifecycle.isClosed { close(into: &actions) }
            return
        }
        guard timeouts.isExpired(now: now) else { return }
        if timeouts.wait == .readingRequest && slots.isEmpty && lifecycle.output.isEmpty {
            // Tell a slow client why, without waiting for it to read.
            pendingRefusal = .abandoning
            return
        }
        close(into: &actions)
    }

    /// Closes the connection (or forgets what it held, when the lifecycle closed it already).
    private mutating func close(into actions: inout [ConnectionAction]) {
        if !lifecycle.isClosed { lifecycle.close(into: &actions) }
        slots.removeAll()
        pendingRefusal = nil
        awaitsAnswer = false
        handedOutSequence = nil
        streamSequence = nil
        upgradeSequence = nil
    }

    /// Tells the timeouts what the connection now waits for.
    private mutating func updateWait(now: UInt64) {
        if !lifecycle.output.isEmpty {
            return  // `.writing` is entered when the socket blocks, and restarted on progress
        } else if !slots.isEmpty || streamSequence != nil {
            timeouts.enter(.handling, now: now)
        } else if parser.hasPartialMessage {
            timeouts.enter(.readingRequest, now: now)
        } else {
            timeouts.enter(.idle, now: now)
        }
    }
}
