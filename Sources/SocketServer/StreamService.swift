/// One protocol served on the event loops (HTTP/1.1 today, SMTP next): it makes a state machine for
/// each accepted connection and performs the jobs those machines ask for. What a machine can answer at
/// once (an HTTP health check, an SMTP `NOOP`) it answers itself within `handle`, with no job.
public protocol StreamService: Sendable {
    /// The state machine of a new connection from `peer` (IP address text). `refusing` is true when
    /// the server is over its connection cap: the machine answers that at once and closes.
    func makeMachine(peer: String, refusing: Bool, loop: EventLoop) -> any ConnectionStateMachine

    /// Performs `job` (a machine's `perform` action) and calls `completion` exactly once, from any
    /// thread, with what the machine expects back as `completed`; calling it before returning (on
    /// `loop`) is the fast path, with no thread hop.
    func perform(
        _ job: any AnyObject & Sendable, on loop: EventLoop,
        completion: @escaping @Sendable (any AnyObject & Sendable) -> Void)
}

/// A job that knows how to run itself: what a machine a connection switched to (a WebSocket after HTTP's `101`) asks
/// for, whatever service made the connection's first machine; that service hands it on with its completion.
public protocol SelfPerformingJob: AnyObject, Sendable {
    /// Runs the job and calls `completion` (from any thread, any number of times for a job that lasts) with what
    /// its machine expects back as `completed`.
    func perform(on loop: EventLoop, completion: @escaping @Sendable (any AnyObject & Sendable) -> Void)
}
