import Foundation
import HTTP1
import SocketServer

/// HTTP/1.1 as a `StreamService`: one `HTTPRequestPipeline` (around an `HTTPConnectionStateMachine`) per
/// connection, requests answered by the responder (at once within the turn, or later through `perform`).
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
        init(loops: [EventLoop], configuration: HTTPServerConfiguration) {
            let prefix = HTTPLoopState.randomPrefix()
            states = loops.map {
                HTTPLoopState(
                    index: $0.index, prefix: prefix, wallClock: configuration.wallClock, clock: $0.clock,
                    accessLog: $0, accessLogLabel: configuration.accessLogLabel, loop: $0,
                    shortRequestsPerTurn: configuration.shortRequestsPerTurn)
            }
        }
    }

    /// Creates the service for the loops of `group`; each loop gathers its access-log lines.
    public init(shared: HTTPConnectionShared, group: EventLoopGroup) {
        self.shared = shared
        loopStates = LoopStates(loops: group.loops, configuration: shared.configuration)
    }

    public func makeMachine(peer: String, refusing: Bool, loop: EventLoop) -> any ConnectionStateMachine {
        HTTPRequestPipeline(
            shared: shared, loopState: loopStates.states[loop.index], peer: peer, refusing: refusing)
    }

    /// Runs a job's deferred work; its response comes back to the machine as a `Completion`.
    public func perform(
        _ job: any AnyObject & Sendable, on loop: EventLoop,
        completion: @escaping @Sendable (any AnyObject & Sendable) -> Void
    ) {
        guard let job = job as? HTTPRequestPipeline.Job else {
            if let job = job as? HTTPRequestPipeline.UpgradeJob {
                let sequence = job.sequence
                let clock = loopStates.states[loop.index].clock
                return job.work { decision in
                    let completed: HTTPRequestPipeline.Completion
                    switch decision {
                    case .respond(let response):
                        completed = .init(sequence: sequence, response: response, finishedAt: clock())
                    case .upgrade(let upgrade):
                        completed = .init(
                            sequence: sequence, response: upgrade.response, upgrade: upgrade, finishedAt: clock())
                    }
                    completion(completed)
                }
            }
            if let postponed = job as? HTTPRequestPipeline.PostponedRequest {
                // Back to the connection at the loop's next turn, on the loop's thread.
                return loop.nextTurn { completion(postponed) }
            }
            guard let job = job as? HTTPRequestPipeline.StreamJob else {
                // A job of the protocol a connection switched to.
                guard let job = job as? any SelfPerformingJob else {
                    preconditionFailure("HTTPService was given a job its machines did not make")
                }
                return job.perform(on: loop, completion: completion)
            }
            job.stream.attach(completion)
            return job.work(job.stream)
        }
        let sequence = job.sequence
        let clock = loopStates.states[loop.index].clock
        job.work { response in
            completion(
                HTTPRequestPipeline.Completion(sequence: sequence, response: response, finishedAt: clock()))
        }
    }
}
