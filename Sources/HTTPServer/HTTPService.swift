import Foundation
import HTTP1
import SocketServer

/// HTTP/1.1 as a `StreamService`: one `HTTPConnectionStateMachine` per connection, requests answered
/// by the responder.
public struct HTTPService: StreamService {
    /// The server's limits, responder and encoder.
    public let shared: HTTPConnectionShared
    private let loopStates: LoopStates

    /// One `HTTPLoopState` per loop index.
    ///
    /// `@unchecked Sendable`: the array never changes after `init`, and each element is used only on
    /// the loop whose index it has.
    private final class LoopStates: @unchecked Sendable {
        let states: [HTTPLoopState]
        init(loops: [EventLoop], label: String) {
            let prefix = HTTPLoopState.randomPrefix()
            states = loops.map {
                HTTPLoopState(
                    index: $0.index, prefix: prefix, wallClock: { Int(time(nil)) }, accessLog: $0,
                    accessLogLabel: label)
            }
        }
    }

    /// Creates the service for the loops of `group`; each loop gathers its access-log lines.
    public init(shared: HTTPConnectionShared, group: EventLoopGroup) {
        self.shared = shared
        loopStates = LoopStates(loops: group.loops, label: shared.configuration.accessLogLabel)
    }

    public func makeMachine(peer: String, refusing: Bool, loop: EventLoop) -> any ConnectionStateMachine {
        HTTPConnectionStateMachine(
            shared: shared, loopState: loopStates.states[loop.index], peer: peer, refusing: refusing)
    }

    public func perform(
        _ job: any AnyObject & Sendable, on loop: EventLoop,
        completion: @escaping @Sendable (any AnyObject & Sendable) -> Void
    ) {
        guard let job = job as? HTTPConnectionStateMachine.Job else {
            preconditionFailure("HTTPService was given a job its machines did not make")
        }
        let sequence = job.sequence
        let clock = shared.accessLogClock
        shared.responder.respond(to: job.request, route: job.route) { response in
            completion(
                HTTPConnectionStateMachine.Completion(sequence: sequence, response: response, finishedAt: clock?()))
        }
    }

    /// The completion of a job whose route answers at once (see `HTTPResponder.respondNow`).
    public func performNow(_ job: any AnyObject & Sendable) -> (any AnyObject & Sendable)? {
        guard let job = job as? HTTPConnectionStateMachine.Job,
            let response = shared.responder.respondNow(to: job.request, route: job.route)
        else { return nil }
        // Read when the access log will say how long the request took, so that an answer given within the loop
        // turn that read the request logs its real time, not 0.
        return HTTPConnectionStateMachine.Completion(
            sequence: job.sequence, response: response, finishedAt: shared.accessLogClock?())
    }
}
