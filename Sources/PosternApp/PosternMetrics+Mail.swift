import CoreMetrics
import JMAP
import MailSubmission
import MailStore
import OutboundQueue
import SMTPServer
import ServerMetrics

extension PosternMetrics {
    /// Counts what retention pruned, by why: `postern_mail_pruned_total{reason="count|age"}`.
    func mailPruned(_ pruned: [MailPruned]) {
        for reason in [MailPruned.Reason.count, .age] {
            let count = pruned.filter { $0.reason == reason }.count
            if count > 0 {
                Counter(label: "postern_mail_pruned_total", dimensions: [("reason", reason.rawValue)]).increment(by: count)
            }
        }
    }

    /// Counts the SMTP faults failure injection made (issue 71), by stage and action:
    /// `postern_smtp_chaos_injections_total{stage="connect|helo|auth|mail|rcpt|data|after-data",
    /// action="reply|disconnect|stall"}`.
    @Sendable
    func chaosInjected(_ stage: SMTPChaosRule.Stage, _ action: SMTPChaosRule.Action) {
        Counter(
            label: "postern_smtp_chaos_injections_total", dimensions: [("stage", stage.rawValue), ("action", action.name)]
        ).increment()
    }

    /// Counts SMTP's outcomes:
    /// `postern_smtp_messages_total{result="stored|too_large|not_stored|mailbox_full|unreadable|no_recipient"}`,
    /// `postern_smtp_refusals_total{reason="unknown_recipient|relay_denied|too_many_connections"}` and the replies by
    /// class, `postern_smtp_replies_total{class,command}`.
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
            case .reply: "submission_refused"
            }
            Counter(label: "postern_smtp_messages_total", dimensions: [("result", result)]).increment()
        case .recipientRefused(let verdict):
            let reason = verdict == .relayDenied ? "relay_denied" : "unknown_recipient"
            Counter(label: "postern_smtp_refusals_total", dimensions: [("reason", reason)]).increment()
        case .sessionRefused:
            Counter(label: "postern_smtp_refusals_total", dimensions: [("reason", "too_many_connections")]).increment()
            Self.countReply(421, command: "connect")
        case .transactionEnded(let record):
            // Every reply of the transaction that the log line shows: each RCPT TO's and the message's.
            for recipient in record.recipients { Self.countReply(recipient.code, command: "rcpt") }
            if let result = record.result { Self.countReply(result, command: "data") }
        }
    }

    /// `postern_smtp_replies_total{class="2xx|4xx|5xx",command="rcpt|data|connect"}`: one reply `code`.
    static func countReply(_ code: Int, command: String) {
        guard let replyClass = smtpReplyClass(code) else { return }
        Counter(label: "postern_smtp_replies_total", dimensions: [("class", replyClass), ("command", command)])
            .increment()
    }

    /// `2xx`, `4xx` or `5xx` for a reply code of those classes; nil for any other (none is counted).
    static func smtpReplyClass(_ code: Int) -> String? {
        switch code {
        case 200..<300: "2xx"
        case 400..<500: "4xx"
        case 500..<600: "5xx"
        default: nil
        }
    }

    /// Counts JMAP submissions by recipient: `postern_jmap_recipients_total{result="delivered|outbox|refused"}`, and
    /// the outside recipients queued to leave or held in the outbox,
    /// `postern_outbound_recipients_total{result="queued|held"}`.
    @Sendable
    func jmapSubmission(_ outcome: JMAPService.SubmissionOutcome) {
        for (result, count) in [("delivered", outcome.delivered), ("outbox", outcome.keptInOutbox), ("refused", outcome.refused)]
        where count > 0 {
            Counter(label: "postern_jmap_recipients_total", dimensions: [("result", result)]).increment(by: count)
        }
        for (result, count) in [("queued", outcome.queued), ("held", outcome.keptInOutbox)] where count > 0 {
            Counter(label: "postern_outbound_recipients_total", dimensions: [("result", result)]).increment(by: count)
        }
    }

    /// Counts the submission listener's submissions by recipient:
    /// `postern_submission_recipients_total{result="delivered|outbox|refused"}`, and the outside recipients queued to
    /// leave or held in the outbox, `postern_outbound_recipients_total{result="queued|held"}`, as JMAP's are counted.
    @Sendable
    func smtpSubmission(_ submitted: Submitted) {
        let counts = [("delivered", submitted.delivered), ("outbox", submitted.kept), ("refused", submitted.undelivered)]
        for (result, count) in counts where count > 0 {
            Counter(label: "postern_submission_recipients_total", dimensions: [("result", result)]).increment(by: count)
        }
        for (result, count) in [("queued", submitted.queued), ("held", submitted.kept)] where count > 0 {
            Counter(label: "postern_outbound_recipients_total", dimensions: [("result", result)]).increment(by: count)
        }
    }

    /// Counts the outbound queue's attempts, each once,
    /// `postern_outbound_delivery_attempts_total{result="delivered|deferred|failed|partial|unrecorded"}`, and by
    /// recipient, `postern_outbound_recipients_total{result="delivered|deferred|failed"}`.
    @Sendable
    func outboundAttempt(_ attempt: OutboundDispatcher.Attempt) {
        Counter(label: "postern_outbound_delivery_attempts_total", dimensions: [("result", attempt.result.rawValue)])
            .increment()
        guard let completion = attempt.completion, !completion.leaseLost else { return }
        let delivered = completion.ended.filter {
            if case .delivered = $0.status { true } else { false }
        }.count
        let failed = completion.ended.count - delivered
        let deferred = completion.deferred.count
        for (result, count) in [("delivered", delivered), ("deferred", deferred), ("failed", failed)] where count > 0 {
            Counter(label: "postern_outbound_recipients_total", dimensions: [("result", result)]).increment(by: count)
        }
    }

    /// Pro users' passkey ceremonies in the web inbox, beside the owners' in the same family:
    /// `postern_passkey_ceremonies_total{ceremony="registration|sign_in",result}`.
    @Sendable
    func passkeyCeremony(_ ceremony: String, _ result: String) {
        Counter(label: "postern_passkey_ceremonies_total", dimensions: [("ceremony", ceremony), ("result", result)])
            .increment()
    }

    /// The web inbox's live lists: `postern_web_inbox_event_streams` (streams open now).
    @Sendable
    func webInboxLiveStream(_ opened: Bool) {
        let streams = Meter(label: "postern_web_inbox_event_streams")
        if opened { streams.increment() } else { streams.decrement() }
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
