import JMAP
import Logging
import MailDelivery
import OutboundQueue

extension Surfaces {
    /// The transport outbound mail leaves by, nil when `POSTERN_OUTBOUND_DELIVERY` is `off` (nothing leaves; outside
    /// recipients stay in the outbox and no dispatcher runs).
    ///
    /// This branch composes no transport yet: the direct and relay transports (MailTransfer) are composed here, from
    /// their own configuration, when they are merged. Until then every runtime is `off`.
    static func outboundTransport(_ c: PosternConfiguration) -> (any OutboundTransport)? {
        nil
    }

    /// What JMAP's submissions record through and may send: the outbound queue as the ledger, outside recipients
    /// queued only when a transport is composed, the hourly and daily limits of `POSTERN_OUTBOUND_PER_HOUR` and
    /// `_PER_DAY`, and the sender rule of `POSTERN_OUTBOUND_SENDERS`.
    static func jmapOutbound(_ c: PosternConfiguration, mail: LocalMail) -> JMAPOutbound {
        let queue = c.outboundQueue
        let senders = queue.senders
        return JMAPOutbound(
            ledger: mail.outbound, sendsOutside: outboundTransport(c) != nil,
            limits: [
                SendLimit(name: "hourly", count: queue.perHour, windowSeconds: 3600),
                SendLimit(name: "daily", count: queue.perDay, windowSeconds: 86_400),
            ],
            mayReachOutside: { _ in
                // `owned` is fail-closed until the owned-inbox rule (an inbox an owner holds) is composed here.
                senders == .all
            })
    }

    /// The outbound dispatcher over `transport`: its attempts counted in `/metrics`; each recipient that ended is
    /// logged (the sender's DSN is composed here with the DSN builder).
    static func outboundDispatcher(
        mail: LocalMail, transport: any OutboundTransport, metrics: PosternMetrics,
        clock: @escaping @Sendable () -> Int64, logger: Logger
    ) -> OutboundDispatcher {
        OutboundDispatcher(
            queue: mail.outbound, transport: transport, clock: clock, logger: logger,
            onEnded: { batch, ended in
                for recipient in ended where recipient.kind == .failed {
                    logger.notice(
                        "outbound recipient failed",
                        metadata: [
                            "message": "\(batch.messageID)", "recipient": "\(recipient.recipient)",
                            "reply": "\(recipient.reply)", "expired": "\(recipient.expired)",
                        ])
                }
            },
            onAttempt: metrics.outboundAttempt)
    }
}
