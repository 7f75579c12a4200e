import MailboxAccounts
import Webhooks

extension RuntimeService {
    /// The webhook dispatcher's delivery loop as a service: started with the group, stopped (the round in progress
    /// finished) after the listeners that take mail have stopped.
    static func webhooks(_ dispatcher: WebhookDispatcher) -> RuntimeService {
        RuntimeService("webhooks", start: { dispatcher.start() }, stop: { await dispatcher.stop() })
    }
}
