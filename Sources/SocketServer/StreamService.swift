/// One protocol served on the event loops (HTTP/1.1 today, SMTP next): it makes a state machine for
/// each accepted connection and performs the jobs those machines ask for.
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

    /// What `job` completes with when that is known at once on the loop (nothing to wait for), else
    /// nil and the loop calls `perform`. The common case then costs no completion closures: three
    /// closure contexts per HTTP request, each allocated, retained and released, were a tenth of the
    /// CPU of a `/healthz` request.
    func performNow(_ job: any AnyObject & Sendable) -> (any AnyObject & Sendable)?
}

extension StreamService {
    /// Nothing is known at once: every job goes through `perform`.
    public func performNow(_ job: any AnyObject & Sendable) -> (any AnyObject & Sendable)? { nil }
}
