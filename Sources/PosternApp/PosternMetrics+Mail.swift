import CoreMetrics
import JMAP
import SMTPServer

extension PosternMetrics {
    /// Counts SMTP's outcomes:
    /// `postern_smtp_messages_total{result="stored|too_large|not_stored|mailbox_full|unreadable|no_recipient"}` and
    /// `postern_smtp_refusals_total{reason="unknown_recipient|relay_denied|too_many_connections"}`.
    @Sendable
    func smtpEvent(_ event: SMTPSessionEvent) {
        switch event {
        case .messageStored:
            Counter(label: "postern_smtp_messages_total", dimensions: [("result", "stored")]).increment()
        case .messageRefused(.tooLarge):
            Counter(label: "postern_smtp_messages_total", dimensions: [("result", "too_large")]).increment()
        case .messageRefused(.notStored):
            Counter(label: "postern_smtp_messages_total", dimensions: [("result", "not_stored")]).increment()
        case .messageRefused(.refused(let refusal)):
            let result = switch refusal {
            case .mailboxFull: "mailbox_full"
            case .unreadableContent: "unreadable"
            case .noSuchRecipient: "no_recipient"
            }
            Counter(label: "postern_smtp_messages_total", dimensions: [("result", result)]).increment()
        case .recipientRefused(let verdict):
            let reason = verdict == .relayDenied ? "relay_denied" : "unknown_recipient"
            Counter(label: "postern_smtp_refusals_total", dimensions: [("reason", reason)]).increment()
        case .sessionRefused:
            Counter(label: "postern_smtp_refusals_total", dimensions: [("reason", "too_many_connections")]).increment()
        case .transactionEnded:
            break  // the log line's (SMTPTransactionLog); the counters above count its parts
        }
    }

    /// Counts JMAP submissions by recipient: `postern_jmap_recipients_total{result="delivered|outbox|refused"}`.
    @Sendable
    func jmapSubmission(_ outcome: JMAPService.SubmissionOutcome) {
        for (result, count) in [("delivered", outcome.delivered), ("outbox", outcome.keptInOutbox), ("refused", outcome.refused)]
        where count > 0 {
            Counter(label: "postern_jmap_recipients_total", dimensions: [("result", result)]).increment(by: count)
        }
    }

    /// The JMAP event source: `postern_jmap_event_streams` (streams open now) and
    /// `postern_jmap_events_pushed_total{event="state|ping"}`.
    @Sendable
    func jmapEventStream(_ activity: JMAPService.EventStreamActivity) {
        switch activity {
        case .opened: Meter(label: "postern_jmap_event_streams").increment()
        case .closed: Meter(label: "postern_jmap_event_streams").decrement()
        case .pushed(let isState):
            Counter(label: "postern_jmap_events_pushed_total", dimensions: [("event", isState ? "state" : "ping")])
                .increment()
        }
    }
}
