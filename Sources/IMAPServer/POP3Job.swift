import IMAP

/// What a POP3 connection's session hands its service to do off the loop: one request, carried out by the
/// connection's driver.
final class POP3Job: Sendable {
    let request: POP3Request
    let driver: POP3ConnectionDriver

    init(_ request: POP3Request, driver: POP3ConnectionDriver) {
        self.request = request
        self.driver = driver
    }
}

/// What comes back to the session, on its loop.
final class POP3Completion: Sendable {
    enum Outcome: Sendable {
        /// The answer to `PASS` or an `AUTH` step.
        case authenticated(POP3AuthenticationOutcome)
        /// A message's bytes for `RETR`/`TOP`; nil when it is gone.
        case retrieved([UInt8]?)
        /// Whether `QUIT` removed every message marked deleted.
        case committed(Bool)
    }

    let outcome: Outcome

    init(_ outcome: Outcome) {
        self.outcome = outcome
    }
}
