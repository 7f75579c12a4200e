import ComputePool
import DKIMKeys
import DNS
import Fetch
import Logging
import MailAuth
import MailDelivery
import MailSubmission
import MailTransfer
import OutboundQueue
import Storage
import ServerMetrics

/// What outbound delivery runs on: its transport, and the threads and fetcher only it uses (stopped with it).
struct OutboundRuntime {
    let transport: any OutboundTransport
    /// Where SMTP sessions and DKIM signing block, apart from the worker pool that hashes and signs for the surfaces.
    let threads: WorkerPool
    /// Fetches MTA-STS policies, trusting what the SMTP sessions trust.
    let policyFetcher: Fetcher
}

extension Surfaces {
    /// The transport outbound mail leaves by, nil when `POSTERN_OUTBOUND_DELIVERY` is `off` (nothing leaves; outside
    /// recipients stay in the outbox and no dispatcher runs). Direct mode looks MX, address and `_mta-sts` records up
    /// through `POSTERN_DNS_RESOLVER`, as both modes do every host name (MTA-STS policy hosts, a relay), and retries a failed STARTTLS handshake in the clear unless `secureDomains` (the
    /// outbound queue) says the domain took mail over TLS before; both modes sign with the domain's DKIM keys and reach
    /// only the addresses the outbound policy allows.
    /// - Throws: ``SocketError/tlsFailed`` when `POSTERN_OUTBOUND_TRUST_CA_FILE` cannot be read.
    static func outboundRuntime(
        _ c: PosternConfiguration, dkimKeys: DKIMKeyStore, secureDomains: any SecureDomainHistory,
        resolver: DNSResolver, now: @escaping @Sendable () -> Int64, logger: Logger
    ) throws -> OutboundRuntime? {
        guard c.outbound.mode != .off else { return nil }
        var fetch = c.outboundAddresses.policy.fetchConfiguration
        fetch.trustedRootsPEMFile = c.outbound.trustCAFile
        let policyFetcher = try Fetcher(configuration: fetch, resolver: resolver)
        // One thread per session at once: the dispatcher runs at most 64 batches, two per destination by default.
        let threads = WorkerPool(threads: 16, queueLimit: 256, name: "postern-outbound")
        let dns = ResolverMailAuthDNS(resolver: resolver)
        let made = try c.outbound.makeTransport(
            hostname: c.smtp.hostname, policy: c.outboundAddresses.policy.addresses, dns: dns, resolver: resolver,
            policyFetcher: policyFetcher, signers: dkimKeys, pool: threads, now: now, secureDomains: secureDomains,
            logger: logger)
        guard let transport = made else {
            threads.shutdown()
            policyFetcher.shutdown()
            return nil
        }
        return OutboundRuntime(transport: transport, threads: threads, policyFetcher: policyFetcher)
    }

    /// What every submission (``Submitter``, behind JMAP and Mailpit's release) and a release of held mail are
    /// admitted and recorded through: the outbound queue as the ledger, outside recipients queued only when mail
    /// leaves (`POSTERN_OUTBOUND_DELIVERY` not `off`), the queue's send limits and size limit
    /// (``OutboundQueueConfiguration/sendLimits``, `maxMessageBytes`) and its sender rule (`POSTERN_OUTBOUND_SENDERS`).
    package static func outboundAdmission(
        _ c: PosternConfiguration, mail: LocalMail, database: any SQLDatabase
    ) -> OutboundAdmission {
        let queue = c.outboundQueue
        let rule = OutboundSenderRule(
            mode: queue.senders, agentDomain: c.agent.inboxDomain,
            accounts: SenderAccountStores(
                database: database, mailboxDomains: c.mailbox.domains + c.mailbox.proDomains, claims: mail.domains))
        return OutboundAdmission(
            ledger: mail.outbound, sendsOutside: c.outbound.mode != .off, limits: queue.sendLimits,
            maxMessageBytes: queue.maxMessageBytes, sender: { try await rule.standing(of: $0) })
    }

    /// The one owner of a submission over ``outboundAdmission(_:mail:database:)`` and local delivery.
    static func submitter(_ c: PosternConfiguration, mail: LocalMail, database: any SQLDatabase) -> Submitter {
        Submitter(admission: outboundAdmission(c, mail: mail, database: database), delivery: mail.delivery)
    }

    /// The outbound dispatcher over `transport`, its attempts counted in `/metrics`. Reports to the sender are the
    /// queue's: its completion puts a bounce, and a delay notice for recipients deferred past
    /// `POSTERN_OUTBOUND_DELAY_NOTICE_SECONDS`, in the sender's inbox in its own transaction (``LocalMail/outbound``).
    /// Before each attempt the sender rule of every submission is asked again: mail of a sender who may no longer
    /// send outside (an owner's approval withdrawn) is held, not sent.
    static func outboundDispatcher(
        _ c: PosternConfiguration, mail: LocalMail, database: any SQLDatabase, transport: any OutboundTransport,
        metrics: PosternMetrics, clock: @escaping @Sendable () -> Int64, logger: Logger
    ) -> OutboundDispatcher {
        let rule = outboundAdmission(c, mail: mail, database: database)
        return OutboundDispatcher(
            queue: mail.outbound, transport: transport, clock: clock, logger: logger,
            onAttempt: metrics.outboundAttempt,
            senderCheck: { sender in
                guard case .held(let reason) = try await rule.standing(of: sender) else { return nil }
                return reason
            })
    }
}
