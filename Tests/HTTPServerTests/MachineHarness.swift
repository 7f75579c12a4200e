import HTTP1
import SocketServer
import Synchronization

@testable import HTTPServer

/// A responder that counts how often it routes, so tests can see a request routed once. Unless it
/// `answersAtOnce`, every answer is `.later`, so that the test completes the jobs in the order it chooses.
final class CountingResponder: HTTPResponder {
    final class Counter: Sendable {
        let routes = Atomic<Int>(0)
    }

    let inner = RouterResponder(router: testRouter())
    let counter = Counter()
    let answersAtOnce: Bool

    init(answersAtOnce: Bool) {
        self.answersAtOnce = answersAtOnce
    }

    func route(method: HTTPMethod, path: String) -> HTTPRoute {
        counter.routes.add(1, ordering: .relaxed)
        return inner.route(method: method, path: path)
    }

    func respond(to request: HTTPRequest, route: HTTPRoute) -> HTTPAnswer {
        if request.path == "/events" { return .stream { _ in } }  // the stream tests write through the job's stream
        if request.path == "/upgrade" { return .upgrade(Self.echoUpgrade) }
        // The switch tests decide through the harness's `decide(_:)`.
        if request.path == "/upgrade-later" { return .decideUpgrade { _ in } }
        let answer = inner.respond(to: request, route: route)
        if answersAtOnce { return answer }
        return .later { completion in
            switch answer {
            case .now(let response): completion(response)
            case .later(let work): work(completion)
            case .stream, .upgrade, .decideUpgrade: completion(.text(.internalServerError, "streams are driven by the stream tests"))
            }
        }
    }
}

extension CountingResponder {
    /// The switch to `EchoMachine`.
    static let echoUpgrade = HTTPUpgrade(
        response: HTTPResponse(
            status: HTTPStatus(code: 101, reason: "Switching Protocols"), headers: ["Upgrade": "echo"])
    ) { EchoMachine(lifecycle: $0.lifecycle, input: $0.input) }
}

/// The protocol `/upgrade` switches to: it writes back what it was handed and every byte it reads after.
struct EchoMachine: ConnectionStateMachine {
    var lifecycle: ConnectionLifecycle
    var input: [UInt8]

    var hasUnsentOutput: Bool { !lifecycle.output.isEmpty }

    func withUnsentOutput(_ body: (UnsafeRawBufferPointer) throws -> Int?) rethrows -> Int? {
        try lifecycle.output.withUnsentBytes(body)
    }

    mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        switch event {
        case .opened: lifecycle.output.append(Array("echo:".utf8) + input)
        case .bytesRead(let bytes): lifecycle.output.append(Array(bytes))
        case .wrote(let count): _ = lifecycle.didWrite(count)
        default: break
        }
        lifecycle.finishTurn(after: event, read: true, deadline: nil, into: &actions)
    }
}

/// Drives one connection's `HTTPRequestPipeline` and its `HTTPConnectionStateMachine` with no socket: the test plays
/// the event loop, a mock clock and the responder, and reads the actions back as short strings.
struct MachineHarness {
    typealias Machine = HTTPRequestPipeline

    static let second: UInt64 = 1_000_000_000

    /// What the loop's clock reads (the pipeline reads it after encoding an answer); events carry `now` instead.
    final class LoopClock: Sendable {
        let nanoseconds = Atomic<UInt64>(0)
    }

    var machine: Machine
    let responder: CountingResponder
    var now: UInt64 = 1_000 * MachineHarness.second
    /// Stopped at 0 unless a test sets it: a turn's `now` older than the clock plays a turn that spent long.
    let loopClock = LoopClock()
    /// Jobs handed out and not yet completed, oldest first.
    var jobs: [Machine.Job] = []
    /// Stream jobs handed out (`GET /events`), oldest first.
    var streamJobs: [Machine.StreamJob] = []
    /// Switches waiting for a decision (`GET /upgrade-later`), oldest first.
    var upgradeJobs: [Machine.UpgradeJob] = []

    init(
        refusing: Bool = false, answersAtOnce: Bool = false,
        _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }
    ) {
        var configuration = HTTPServerConfiguration()
        configure(&configuration)
        responder = CountingResponder(answersAtOnce: answersAtOnce)
        let loopClock = self.loopClock
        machine = Machine(
            shared: HTTPConnectionShared(configuration: configuration, responder: responder),
            // A stopped clock unless a test sets it: the harness's `now` moves with its events.
            loopState: HTTPLoopState(
                index: 0, prefix: Array("abcdef".utf8), wallClock: { 1_700_000_000 },
                clock: { loopClock.nanoseconds.load(ordering: .relaxed) }),
            peer: "192.0.2.7", refusing: refusing)
    }

    /// Sends one event; returns the actions, described.
    @discardableResult
    mutating func send(_ event: ConnectionEvent) -> [String] {
        var actions: [ConnectionAction] = []
        machine.handle(event, now: now, into: &actions)
        return actions.map { action in
            switch action {
            case .write: return "write"
            case .setInterest(let read, let write): return "interest(read: \(read), write: \(write))"
            case .armTimer(let deadline): return "timer(+\(Int64(deadline) - Int64(now)))"
            case .cancelTimer: return "cancelTimer"
            case .perform(let value):
                if let job = value as? Machine.StreamJob {
                    streamJobs.append(job)
                    return "stream(\(job.request.method.rawValue) \(job.request.target))"
                }
                if let job = value as? Machine.UpgradeJob {
                    upgradeJobs.append(job)
                    return "decideUpgrade(\(job.request.target))"
                }
                guard let job = value as? Machine.Job else { return "perform(?)" }
                jobs.append(job)
                return "perform(\(job.request.method.rawValue) \(job.request.target))"
            case .shutdownWrite: return "shutdownWrite"
            case .close: return "close"
            }
        }
    }

    /// Bytes arrive.
    @discardableResult
    mutating func receive(_ text: String) -> [String] {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { send(.bytesRead($0)) }
    }

    /// Completes the job for `target` with `body` (200 text); returns the actions.
    @discardableResult
    mutating func complete(_ target: String, body: String = "ok") -> [String] {
        guard let index = jobs.firstIndex(where: { $0.request.target == target }) else { return ["no such job"] }
        let job = jobs.remove(at: index)
        return send(.completed(Machine.Completion(sequence: job.sequence, response: .text(.ok, body))))
    }

    /// Decides the oldest waiting switch (as `HTTPService` brings a decision back); returns the actions.
    @discardableResult
    mutating func decide(_ decision: HTTPUpgradeDecision) -> [String] {
        guard !upgradeJobs.isEmpty else { return ["no such job"] }
        let sequence = upgradeJobs.removeFirst().sequence
        switch decision {
        case .respond(let response):
            return send(.completed(Machine.Completion(sequence: sequence, response: response)))
        case .upgrade(let upgrade):
            return send(.completed(Machine.Completion(sequence: sequence, response: upgrade.response, upgrade: upgrade)))
        }
    }

    /// Delivers what the producer of stream job `index` wrote; returns the actions.
    @discardableResult
    mutating func stream(_ message: HTTPResponseStream.Message, job index: Int = 0) -> [String] {
        send(.completed(HTTPResponseStream.Delivery(stream: streamJobs[index].stream, message: message)))
    }

    /// The socket takes everything: returns the bytes written and the actions after.
    mutating func writeAll() -> (written: String, actions: [String]) {
        var written = ""
        var actions: [String] = []
        while machine.hasUnsentOutput {
            let count = machine.withUnsentOutput { bytes in
                written += String(decoding: bytes, as: UTF8.self)
                return bytes.count
            }
            actions += send(.wrote(count ?? 0))
        }
        return (written, actions)
    }

    /// The socket takes `count` bytes, then blocks.
    mutating func writePartly(_ count: Int) -> (written: String, actions: [String]) {
        let written = machine.machine.output.withUnsentBytes { String(decoding: $0.prefix(count), as: UTF8.self) }
        var actions = send(.wrote(min(count, written.utf8.count)))
        actions += send(.writeBlocked)
        return (written, actions)
    }

    /// Moves the clock on.
    mutating func advance(seconds: UInt64) {
        now += seconds * MachineHarness.second
    }

    var routeCount: Int { responder.counter.routes.load(ordering: .relaxed) }

    /// The status lines' starts (`HTTP/1.1 200`) of the responses in `text`, in order.
    static func statusLines(_ text: String) -> [String] {
        text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { "HTTP/1.1 " + $0.prefix(3) }
    }
}
