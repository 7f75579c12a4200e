import OutboundQueue

extension RuntimeService {
    /// The outbound dispatcher's loop as a service: started with the group, stopped (the attempts in flight ended and
    /// recorded) after the listeners that take mail have stopped. Registered only when outbound delivery is not `off`.
    static func outbound(_ dispatcher: OutboundDispatcher) -> RuntimeService {
        RuntimeService("outbound", start: { dispatcher.start() }, stop: { await dispatcher.stop() })
    }
}
