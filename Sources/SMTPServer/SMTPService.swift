import Logging
import SocketServer

/// SMTP as a `StreamService`: one `SMTPSessionMachine` per connection, its jobs (recipient verdicts,
/// deliveries) run by the sink in a Swift task off the loops, the answers posted back to the loop.
public struct SMTPService: StreamService {
    /// The server's limits and fixed replies.
    public let shared: SMTPSessionShared
    /// The mail store's side: recipient policy and durable delivery.
    public let sink: any SMTPMailSink
    private let logger: Logger
    /// Read as each connection opens: true answers it `421 4.3.2` and closes it (the drain before a stop).
    private let draining: @Sendable () -> Bool

    /// Creates the service.
    /// - Parameters:
    ///   - configuration: limits, timeouts and the greeting's hostname.
    ///   - sink: decides recipients and stores messages.
    ///   - logger: failed deliveries at debug level (the error's type only, never message text).
    ///   - observer: told of stored and refused messages and recipients (metrics), on the loop; must not block.
    ///   - draining: read as each connection opens: true refuses it (`421 4.3.2`). Default: never.
    public init(
        configuration: SMTPServerConfiguration, sink: any SMTPMailSink, logger: Logger,
        observer: (@Sendable (SMTPSessionEvent) -> Void)? = nil, draining: @escaping @Sendable () -> Bool = { false }
    ) {
        shared = SMTPSessionShared(configuration: configuration, observer: observer)
        self.sink = sink
        self.logger = logger
        self.draining = draining
    }

    public func makeMachine(peer: String, refusing: Bool, loop: EventLoop) -> any ConnectionStateMachine {
        let session = SMTPSessionMachine(shared: shared, peer: peer, refusing: refusing, draining: draining())
        guard let tls = shared.configuration.tls else { return session }
        return SMTPTransportMachine(session: session, context: tls, implicit: shared.configuration.implicitTLS)
    }

    public func perform(
        _ job: any AnyObject & Sendable, on loop: EventLoop,
        completion: @escaping @Sendable (any AnyObject & Sendable) -> Void
    ) {
        guard let job = job as? SMTPSessionMachine.Job else {
            preconditionFailure("SMTPService was given a job its machines did not make")
        }
        let sink = self.sink
        let logger = self.logger
        let configuration = shared.configuration
        Task {
            let outcome: SMTPSessionMachine.Completion.Outcome
            switch job.request {
            case .verdict(let recipient):
                outcome = .verdict(await sink.verdict(forRecipient: recipient))
            case .authenticate(let username, let password):
                let identity = await sink.authenticate(username: username, password: password)
                var scope: String?
                if let identity, configuration.chaos?.scoping == .authenticatedUser {
                    scope = await sink.chaosScope(ofIdentity: identity)
                }
                outcome = .authenticated(identity, chaosScope: scope)
            case .stall(let seconds):
                try? await Task.sleep(for: .seconds(seconds))
                outcome = .stalled
            case .confirm(let identity):
                outcome = .confirmed(await sink.isStillAuthenticated(identity))
            case .signIn(let credentials, let client):
                outcome = .signedIn(await sink.signIn(credentials, client: client))
            case .admit(let mailFrom, let signIn):
                outcome = .admitted(await sink.admit(mailFrom: mailFrom, as: signIn))
            case .deliver(var envelope, let data):
                envelope.traceField =
                    SMTPReceivedField(envelope: envelope, hostname: configuration.hostname, time: configuration.wallClock())
                    .bytes
                do {
                    outcome = .delivered(queueID: try await sink.deliver(envelope, data: data))
                } catch let refusal as SMTPDeliveryRefusal {
                    outcome = .refused(refusal)
                } catch {
                    logger.debug(
                        "smtp delivery failed",
                        metadata: [
                            "error": .string(String(describing: type(of: error))),
                            "recipients": .stringConvertible(envelope.recipients.count),
                        ])
                    outcome = .deliveryFailed
                }
            }
            completion(SMTPSessionMachine.Completion(outcome))
        }
    }
}
