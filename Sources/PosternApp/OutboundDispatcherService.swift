import ComputePool
import Fetch
import OutboundQueue

extension RuntimeService {
    /// The outbound dispatcher, a service itself: its `run()` delivers until the group's graceful shutdown, which
    /// reaches it after the listeners that take mail have stopped, and returns once the attempts in flight have ended
    /// and been recorded. Registered only when outbound delivery is not `off`, after ``outboundThreads(_:fetcher:)``.
    static func outbound(_ dispatcher: OutboundDispatcher) -> RuntimeService {
        RuntimeService("outbound", running: dispatcher)
    }

    /// The threads the outbound sessions block on and the fetcher of MTA-STS policies: joined once the outbound
    /// dispatcher, listed after them, has stopped.
    static func outboundThreads(_ threads: WorkerPool, fetcher: Fetcher) -> RuntimeService {
        RuntimeService("outbound threads") {
            await Blocking.run {
                threads.shutdown()
                fetcher.shutdown()
            }
        }
    }
}
