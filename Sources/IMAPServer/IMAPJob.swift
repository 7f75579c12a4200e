import IMAP

/// What an IMAP connection's machine hands its service to do off the loop: one request of its session, carried out
/// by the connection's driver.
final class IMAPJob: Sendable {
    let request: IMAPRequest
    let driver: IMAPConnectionDriver

    init(_ request: IMAPRequest, driver: IMAPConnectionDriver) {
        self.request = request
        self.driver = driver
    }
}

/// What comes back to the machine, on its loop.
final class IMAPCompletion: Sendable {
    enum Outcome: Sendable {
        /// The answer to a `LOGIN` or an `AUTHENTICATE` step.
        case authenticated(IMAPAuthenticationOutcome)
        /// The answer to a mailbox command.
        case completed(IMAPCommandResult)
        /// Changes seen while idling (any number of these per IDLE).
        case notices([IMAPUntaggedResponse])
    }

    let outcome: Outcome

    init(_ outcome: Outcome) {
        self.outcome = outcome
    }
}
