import Webhooks

extension RuntimeService {
    /// The webhook dispatcher, a service itself: its `run()` delivers until the group's graceful shutdown, which
    /// reaches it after the listeners that take mail have stopped, and returns after the round in progress.
    static func webhooks(_ dispatcher: WebhookDispatcher) -> RuntimeService {
        RuntimeService("webhooks", running: dispatcher)
    }
}
