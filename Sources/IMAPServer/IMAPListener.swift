import IMAP
import Logging
import MailDoorServer
import MailStore
import ServerTLS

/// IMAP as its listener serves each connection: an ``IMAPConnection`` of ``IMAPSession`` and its own
/// ``IMAPConnectionDriver``, over the listener's shared look at selected mailboxes.
struct IMAPListener: MailListener {
    let configuration: IMAPServerConfiguration
    let store: MailStore
    let signIn: any MailDoorSignIn
    let logger: Logger
    /// The looks at selected mailboxes every session of the listener shares, bounded by the configuration.
    let snapshots: IMAPSnapshotCache
    /// The envelopes every session of the listener shares (``IMAPEnvelopeCache``), bounded by the configuration.
    let envelopes: IMAPEnvelopeCache
    /// What each account's searches may still read, every session of the listener together (``IMAPSearchBudget``).
    let searchBudget: IMAPSearchBudget
    /// How many commands the listener's loops answered themselves.
    let loopAnswers = IMAPLoopAnswers()

    static let busyRefusal = "* BYE Too many connections, try later"
    static let drainingRefusal = "* BYE Server shutting down"
    var tls: TLSServerContext? { configuration.tls }
    var implicitTLS: Bool { configuration.implicitTLS }
    var writeTimeout: Duration { configuration.writeTimeout }
    var handshakeTimeout: Duration { configuration.limits.unauthenticatedTimeout }

    func connection(peer: String, now: UInt64) -> IMAPConnection {
        var settings = IMAPSessionConfiguration()
        settings.limits = configuration.limits
        settings.buffers = configuration.buffers
        offerSignIn(to: &settings, peer: peer, plaintextOnLoopback: configuration.plaintextOnLoopback)
        let driver = IMAPConnectionDriver(
            store: store, snapshots: snapshots, envelopes: envelopes, signIn: signIn, client: peer,
            now: configuration.wallClock, logger: logger, searchBudget: searchBudget, loopAnswers: loopAnswers)
        return IMAPConnection(session: IMAPSession(configuration: settings, now: now), driver: driver)
    }

    /// What comes back to an IMAP session.
    enum Outcome: Sendable {
        /// The answer to a `LOGIN` or an `AUTHENTICATE` step.
        case authenticated(IMAPAuthenticationOutcome)
        /// The answer to a mailbox command.
        case completed(IMAPCommandResult)
        /// Changes seen while idling (any number of these per IDLE).
        case notices([IMAPUntaggedResponse])
        /// The session's credential no longer holds (``MailSessionStanding``): `* BYE` and close.
        case ended(MailSessionEnd)
    }

    static func perform(
        _ request: IMAPRequest, on driver: IMAPConnectionDriver, completion: @escaping @Sendable (Outcome) -> Void
    ) {
        switch request {
        case .login(let username, let password):
            task(on: driver, completion) { .authenticated(await driver.login(username: username, password: password)) }
        case .authenticate(let step):
            task(on: driver, completion) { .authenticated(await driver.authenticate(step)) }
        case .run(let command, _):
            task(on: driver, completion) {
                if let end = await driver.ended(writing: IMAPConnectionDriver.writes(command.kind)) {
                    return .ended(end)
                }
                return .completed(await driver.run(command))
            }
        case .continueCommand:
            task(on: driver, completion) {
                if let end = await driver.ended(writing: false) { return .ended(end) }
                return .completed(await driver.continueCommand())
            }
        case .idleStarted:
            driver.startIdle(notify: { completion(.notices($0)) }, end: { completion(.ended($0)) })
        case .idleEnded:
            driver.endIdle()
        case .startTLS:
            return  // carried out by the connection's machine (its TLS transport), never made a job
        }
    }
}

extension IMAPListener {
    /// `work` in a Swift task of `driver`'s, counted while it runs (``IMAPConnectionDriver/taskBegan()``): its outcome
    /// to `completion` once the count is down, so the loop may answer the next command itself.
    private static func task(
        on driver: IMAPConnectionDriver, _ completion: @escaping @Sendable (Outcome) -> Void,
        _ work: @escaping @Sendable () async -> Outcome
    ) {
        driver.taskBegan()
        Task {
            let outcome = await work()
            driver.taskEnded()
            completion(outcome)
        }
    }

    /// A command on the selected mailbox whose data is one read (`FETCH`, `SEARCH`, `STATUS`, issue 84): on SQLite, a
    /// driver with no task out may answer it on the loop (``IMAPConnectionDriver/answerNow(_:)``).
    static func mayAnswerNow(_ request: IMAPRequest, on driver: IMAPConnectionDriver) -> Bool {
        guard case .run(let command, _) = request else { return false }
        return driver.mayAnswerNow(command)
    }

    static func answerNow(_ request: IMAPRequest, on driver: IMAPConnectionDriver) -> Outcome? {
        guard case .run(let command, _) = request, let result = driver.answerNow(command) else { return nil }
        return .completed(result)
    }

    var shortRequestsPerTurn: Int { configuration.shortCommandsPerTurn }
}

/// IMAP as a `StreamService` (``MailService``).
typealias IMAPService = MailService<IMAPListener>
/// One request of an IMAP session for its driver.
typealias IMAPJob = MailJob<IMAPListener>
/// An IMAP driver's answer, back on the loop.
typealias IMAPCompletion = MailCompletion<IMAPListener>

extension IMAPService {
    /// IMAP's service for `configuration`, its sessions sharing one cache of selected mailboxes and one of envelopes,
    /// each bounded by it.
    init(
        configuration: IMAPServerConfiguration, store: MailStore, signIn: any MailDoorSignIn, logger: Logger,
        draining: @escaping @Sendable () -> Bool
    ) {
        let snapshots = IMAPSnapshotCache(capacity: configuration.snapshotCacheEntries)
        self.init(
            listener: IMAPListener(
                configuration: configuration, store: store, signIn: signIn, logger: logger, snapshots: snapshots,
                envelopes: IMAPEnvelopeCache(capacity: configuration.envelopeCacheEntries),
                searchBudget: IMAPSearchBudget(limits: configuration.limits)),
            draining: draining)
    }
}
