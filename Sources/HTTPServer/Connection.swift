import Dispatch
import Glibc
import HTTP1

/// One client connection: reads, parses, hands requests to the responder and writes responses in
/// request order.
///
/// `@unchecked Sendable`: every field is read and written only on `loop.queue`. Completions that
/// arrive from other threads hop onto that queue before touching the connection.
final class Connection: @unchecked Sendable {
    /// A response position in the pipeline, filled when its handler completes.
    struct Slot {
        let sequence: UInt64
        let method: HTTPMethod
        let version: HTTPVersion
        let keepAlive: Bool
        let requestID: String
        /// Encoded bytes once ready.
        var bytes: [UInt8]?
        /// Whether the connection closes after this response.
        var closeAfter: Bool
    }

    let fd: Int32
    let remoteAddress: String
    let loop: EventLoop
    let core: ServerCore
    /// Over the connection cap: the first request gets 503 and the connection closes.
    let refusing: Bool

    var parser: HTTPRequestParser
    var timeouts: ConnectionTimeouts
    var writeSource: DispatchSourceWrite?
    var readSuspended = false
    var writeArmed = false

    var output: [UInt8] = []
    var outputOffset = 0
    var slots: [Slot] = []
    private var nextSequence: UInt64 = 0
    /// False after a request that ends the connection, a parse error, or a refusal.
    var acceptingRequests = true
    /// The path of the request whose head was parsed but whose body was not, for refusals such as 413.
    private var pathOfRequestInProgress: String?
    /// The last queued response closes the connection once written.
    var closeAfterFlush = false
    /// The peer sent EOF: answer what was asked, then close.
    var peerClosed = false
    /// Our side is shut for writing; reading only drains until the peer closes (lingering close).
    var lingering = false
    var shuttingDown = false
    private(set) var closed = false
    /// True while `processInput` runs, so that inline completions do not re-enter it.
    var processing = false

    init(fd: Int32, remoteAddress: String, loop: EventLoop, refusing: Bool) {
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.loop = loop
        core = loop.core
        self.refusing = refusing
        let configuration = loop.core.configuration
        parser = HTTPRequestParser(limits: configuration.limits)
        timeouts = ConnectionTimeouts(
            headerRead: configuration.headerReadTimeout, idle: configuration.idleTimeout,
            write: configuration.writeTimeout, now: configuration.clock())
    }

    /// Starts reading. Call on `loop.queue`.
    func start() {
        do {
            guard let epoll = loop.epoll else { throw SystemCallError(call: "epoll", errno: EBADF) }
            try epoll.add(fd, mask: Epoll.readable)
        } catch {
            core.logger.debug("connection: cannot watch socket", metadata: ["error": "\(error)"])
            close()
            return
        }
        if refusing {
            // Over the cap: answer at once; the lingering close keeps the answer from being reset.
            refuse(.serviceUnavailable)
            flush()
        }
    }

    // MARK: - Reading

    /// The socket is readable (or the peer shut down). Called by the event loop on `loop.queue`.
    func readable(events: UInt32) {
        guard !closed else { return }
        if readSuspended && !lingering {
            // Hang-up and error are reported even while reading is paused, and level-triggered
            // they would be reported forever: the peer is gone both ways, so give up on it.
            if events & Epoll.hangUp != 0 { close() }
            return
        }
        let buffer = loop.readBuffer
        var reads = 0
        while reads < 4 {
            reads += 1
            let count: Int?
            do {
                count = try SystemCall.nonBlocking("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            } catch {
                close()
                return
            }
            guard let count else { break }
            if count == 0 {
                peerClosed = true
                break
            }
            if lingering { continue }  // draining before close: discard
            if !parser.hasPartialMessage && slots.isEmpty {
                timeouts.enter(.readingRequest, now: core.clock())
            }
            parser.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            if count < buffer.count { break }
        }
        if lingering {
            if peerClosed { close() }
            return
        }
        processInput()
        if peerClosed && !closed {
            // Nothing more will arrive: a partial request can never finish.
            acceptingRequests = false
            if slots.isEmpty && outputOffset == output.count { close() } else { updateReading() }
        }
    }

    /// Unsent output above which parsing pauses until the socket takes it.
    static let outputHighWater = 64 * 1024

    /// Whether another buffered request may be parsed and dispatched now.
    private var canTakeRequest: Bool {
        acceptingRequests && !closed && !writeArmed && slots.count < core.configuration.maxPipelinedRequests
            && output.count - outputOffset < Connection.outputHighWater
    }

    /// Parses and dispatches as many buffered requests as the pipeline allows, then writes. Pipelined
    /// responses that are ready together leave in one `send`.
    func processInput() {
        guard !processing, !closed else { return }
        repeat {
            processing = true
            parseBatch()
            processing = false
            flush()
        } while canTakeRequest && parser.bufferedByteCount > 0 && !parser.hasFailed
            && output.count == outputOffset && lastBatchStoppedForOutput
    }

    private var lastBatchStoppedForOutput = false

    private func parseBatch() {
        lastBatchStoppedForOutput = false
        while canTakeRequest {
            let event: HTTPParserEvent?
            do {
                event = try parser.next()
            } catch {
                refuse(error.status)
                return
            }
            guard let event else { return }
            switch event {
            case .head(let head):
                pathOfRequestInProgress = head.path
                let limit =
                    core.responder.bodyLimit(method: head.method, path: head.path)
                    ?? core.configuration.limits.maxBodyLength
                parser.setBodyLimit(limit)
                if head.expectsContinue && parser.bufferedByteCount == 0 && (head.contentLength ?? 0) <= limit {
                    queueInterim(HTTPResponseEncoder.continueResponse)
                }
            case .request(let request, let keepAlive):
                pathOfRequestInProgress = nil
                timeouts.enter(.handling, now: core.clock())
                dispatch(request, keepAlive: keepAlive)
            }
        }
        lastBatchStoppedForOutput = output.count - outputOffset >= Connection.outputHighWater
    }

    private func dispatch(_ request: HTTPRequest, keepAlive: Bool) {
        var request = request
        request.remoteAddress = remoteAddress
        request.requestID = Connection.sanitizedRequestID(request.headers["X-Request-Id"]) ?? loop.nextRequestID()
        let keep = keepAlive
        if !keep { acceptingRequests = false }
        let sequence = nextSequence
        nextSequence += 1
        slots.append(
            Slot(
                sequence: sequence, method: request.method, version: request.version, keepAlive: keep,
                requestID: request.requestID, bytes: nil, closeAfter: !keep))
        let loop = self.loop
        core.responder.respond(to: request) { [self] response in
            if loop.isCurrent {
                self.deliver(sequence, response)
            } else {
                loop.queue.async { self.deliver(sequence, response) }
            }
        }
    }

    /// Queues a bodiless error response and stops reading requests; the connection closes after it.
    private func refuse(_ status: HTTPStatus) {
        acceptingRequests = false
        var bytes: [UInt8] = []
        core.encoder.encodeRefusal(
            core.responder.refusal(status, path: pathOfRequestInProgress), date: loop.date(), into: &bytes)
        let sequence = nextSequence
        nextSequence += 1
        slots.append(
            Slot(
                sequence: sequence, method: .GET, version: .http1_1, keepAlive: false, requestID: "", bytes: bytes,
                closeAfter: true))
    }

    /// Queues bytes (such as `100 Continue`) that go out once every earlier response has.
    private func queueInterim(_ bytes: [UInt8]) {
        let sequence = nextSequence
        nextSequence += 1
        slots.append(
            Slot(
                sequence: sequence, method: .GET, version: .http1_1, keepAlive: true, requestID: "", bytes: bytes,
                closeAfter: false))
    }

    /// A handler's response arrives (on `loop.queue`).
    func deliver(_ sequence: UInt64, _ response: HTTPResponse) {
        guard !closed, let index = slots.firstIndex(where: { $0.sequence == sequence }),
            slots[index].bytes == nil
        else { return }
        let slot = slots[index]
        var keepAlive = slot.keepAlive
        if (shuttingDown || core.isShuttingDown) && index == slots.count - 1 && !parser.hasPartialMessage {
            keepAlive = false
        }
        let context = HTTPResponseEncoder.Context(
            method: slot.method, version: slot.version, keepAlive: keepAlive, requestID: slot.requestID)
        if !keepAlive {
            slots[index].closeAfter = true
            acceptingRequests = false
        }
        if index == 0 {
            // Fast path: the oldest response goes straight into the output buffer.
            core.encoder.encode(response, context: context, date: loop.date(), into: &output)
            let closeAfter = slots[0].closeAfter
            slots.removeFirst()
            if closeAfter { closeAfterFlush = true }
        } else {
            var bytes: [UInt8] = []
            core.encoder.encode(response, context: context, date: loop.date(), into: &bytes)
            slots[index].bytes = bytes
        }
        if !processing {
            flush()
            processInput()
        }
    }

    // MARK: - Closing

    /// Half-closes after the last response and drains what the peer still sends, so that a close
    /// with unread input does not reset the connection before the peer reads our response.
    func startLingeringClose() {
        guard !lingering else { return }
        lingering = true
        _ = shutdown(fd, Int32(SHUT_WR))
        timeouts.enter(.writing, now: core.clock())
        if peerClosed {
            close()
        } else {
            updateReading()
        }
    }

    /// Closes the connection now. Idempotent. Call on `loop.queue`.
    func close() {
        guard !closed else { return }
        closed = true
        loop.remove(self)
        if refusing {
            core.refusingConnections.subtract(1, ordering: .relaxed)
        } else {
            core.servedConnections.subtract(1, ordering: .relaxed)
        }
        slots.removeAll()
        output = []
        loop.epoll?.remove(fd)
        if let writeSource {
            if !writeArmed { writeSource.resume() }
            writeSource.cancel()  // its cancel handler closes the descriptor
        } else {
            SystemCall.close(fd)
        }
    }

    /// The write source let go of the descriptor: close it.
    func sourceCancelled() {
        SystemCall.close(fd)
        writeSource = nil
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
