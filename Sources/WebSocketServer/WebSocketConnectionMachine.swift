import HTTPServer
import SocketServer
import WebSocket

/// A connection after HTTP switched it to WebSocket: the pure `WebSocketSession` on the socket server's events.
/// The session keeps the protocol; this keeps the connection: output with back-pressure (reading pauses while the
/// socket does not take output), the timers the session asks for, the route's handler (its run, `WebSocketHandlerRun`)
/// and the queue limits: a message that would pile more than `maxQueuedBytes` of unsent output closes the socket
/// with 1008 instead (a slow reader is dropped rather than grow the queue or hold anyone else up), and so does a
/// client whose messages the handler leaves unread past `maxQueuedBytes`.
///
/// The handler: started once open; its return closes with 1000, its throw with 1011; the session no longer open
/// (either side closed, the client went away, a limit, shutdown) ends its `inbound` and cancels its task.
///
/// Ends: the session's `closeConnection` shuts our side once its output is written and drains the client's bytes
/// (lingering close, so the close frame is read before any reset); the client's end of input or a failed socket
/// closes at once; shutdown sends 1001 and waits for the client's close up to the close timeout.
struct WebSocketConnectionMachine: LifecycleConnectionMachine {
    /// The job that starts the handler with the way back to the connection's loop.
    final class StartJob: SelfPerformingJob {
        let run: WebSocketHandlerRun
        let handler: WebSocketHandler

        init(run: WebSocketHandlerRun, handler: @escaping WebSocketHandler) {
            self.run = run
            self.handler = handler
        }

        func perform(on loop: EventLoop, completion: @escaping @Sendable (any AnyObject & Sendable) -> Void) {
            run.start(handler, post: completion)
        }
    }

    let configuration: WebSocketConfiguration
    var lifecycle: ConnectionLifecycle
    private var session: WebSocketSession
    private let run = WebSocketHandlerRun()
    private let handler: WebSocketHandler
    /// Bytes read with the upgrade request, fed to the session once open.
    private var pendingInput: [UInt8]
    private var sessionActions: [WebSocketSession.Action] = []

    init(
        handoff: HTTPUpgradeHandoff, configuration: WebSocketConfiguration,
        handler: @escaping WebSocketHandler
    ) {
        self.configuration = configuration
        lifecycle = handoff.lifecycle
        pendingInput = handoff.input
        session = WebSocketSession(configuration: configuration, now: 0)
        self.handler = handler
    }

    mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        guard !lifecycle.isClosed else { return }
        sessionActions.removeAll(keepingCapacity: true)
        switch event {
        case .opened:
            session = WebSocketSession(configuration: configuration, now: now)
            actions.append(.perform(StartJob(run: run, handler: handler)))
            if !pendingInput.isEmpty {
                session.receive(pendingInput, now: now, into: &sessionActions)
                pendingInput = []
            }
        case .bytesRead(let bytes):
            if !lifecycle.isLingering { session.receive(bytes, now: now, into: &sessionActions) }
        case .readEOF:
            // Without a close frame the client is gone (or lingering ended): nothing more can be said.
            return close(into: &actions)
        case .wrote(let count):
            if lifecycle.didWrite(count) && lifecycle.stage == .closingAfterOutput {
                lifecycle.linger(now: now, into: &actions)
            }
        case .writeBlocked:
            _ = lifecycle.didBlock()
        case .writable:
            lifecycle.becameWritable()
        case .timerFired:
            if timerFiredWhileLingering(now: now, into: &actions) { return }
            session.timerFired(now: now, into: &sessionActions)
        case .completed(let value):
            if let finished = value as? WebSocketHandlerRun.Finished {
                session.close(finished.failed ? .internalError : .normal, now: now, into: &sessionActions)
            }
            guard let delivery = value as? WebSocketHandlerRun.Delivery else { break }
            switch delivery.command {
            case .send(let message):
                if lifecycle.output.unsentCount + Self.frameSize(message) > configuration.maxQueuedBytes {
                    session.close(.policyViolation, reason: "send queue full", now: now, into: &sessionActions)
                } else {
                    session.send(message, into: &sessionActions)
                }
            case .close(let code, let reason):
                session.close(code, reason: reason, now: now, into: &sessionActions)
            }
        case .shutdown:
            session.shutdown(now: now, into: &sessionActions)
        case .reset:
            return close(into: &actions)
        }
        apply(now: now, into: &actions)
        guard !lifecycle.isClosed else { return }
        let read = !lifecycle.peerClosed && lifecycle.takesInput
        let deadline = lifecycle.stage == .open ? session.deadline : nil
        lifecycle.finishTurn(after: event, read: read, deadline: deadline, into: &actions)
    }

    /// Carries out what the session asked for.
    private mutating func apply(now: UInt64, into actions: inout [ConnectionAction]) {
        // By index: a close asked for here (unread past the limit) appends its own actions, carried out in turn.
        var index = 0
        while index < sessionActions.count {
            let action = sessionActions[index]
            index += 1
            switch action {
            case .send(let bytes):
                if lifecycle.stage == .open { lifecycle.output.append(bytes) }
            case .deliver(let message):
                if run.deliver(message) > configuration.maxQueuedBytes {
                    session.close(.policyViolation, reason: "too many unread messages", now: now, into: &sessionActions)
                }
            case .closeConnection:
                run.end()
                lifecycle.closeAfterOutput()
                if lifecycle.output.isEmpty { lifecycle.linger(now: now, into: &actions) }
            }
        }
        sessionActions.removeAll(keepingCapacity: true)
        if !session.isOpen { run.end() }
    }

    mutating func close(into actions: inout [ConnectionAction]) {
        if !lifecycle.isClosed { lifecycle.close(into: &actions) }
        session.connectionClosed()
        run.end()
    }

    /// The most bytes `message`'s frame takes.
    private static func frameSize(_ message: WebSocketMessage) -> Int { message.payloadCount + 10 }
}
