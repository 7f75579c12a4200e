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
        init(count: Int) {
            let prefix = HTTPLoopState.randomPrefix()
            states = (0..<count).map {
                HTTPLoopState(index: $0, prefix: prefix, wallClock: { Int(time(nil)) })
            }
        }
    }

    /// Creates the service for a group of `loopCount` loops.
    public init(shared: HTTPConnectionShared, loopCount: Int) {
        self.shared = shared
        loopStates = LoopStates(count: loopCount)
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
        shared.responder.respond(to: job.request, route: job.route) { response in
            completion(HTTPConnectionStateMachine.Completion(sequence: sequence, response: response))
        }
    }
}
