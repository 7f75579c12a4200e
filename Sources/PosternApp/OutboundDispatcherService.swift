import ComputePool
import Fetch
import OutboundQueue

extension RuntimeService {
    /// The outbound dispatcher's loop as a service: started with the group, stopped (the attempts in flight ended and
    /// recorded) after the listeners that take mail have stopped; then the threads its sessions block on and the
    /// fetcher of MTA-STS policies are joined. Registered only when outbound delivery is not `off`.
    static func outbound(_ dispatcher: OutboundDispatcher, threads: WorkerPool, fetcher: Fetcher) -> RuntimeService {
        RuntimeService("outbound", start: { dispatcher.start() }) {
            await dispatcher.stop()
            await Blocking.run {
                threads.shutdown()
                fetcher.shutdown()
            }
        }
    }
}
