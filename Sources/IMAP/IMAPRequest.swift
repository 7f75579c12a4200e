import SASL

/// What the session asks its driver to do: check a sign-in, run a mailbox command, watch for changes. The driver
/// answers each with the matching call on ``IMAPSession``; until it does, the session reads no further command.
public enum IMAPRequest: Sendable, Equatable {
    /// `LOGIN`: check the user name and password. Answer: ``IMAPSession/authenticated(_:now:into:)``.
    case login(username: String, password: String)
    /// One client message of an `AUTHENTICATE` exchange (the initial response first, when the client sent one;
    /// an empty message when it did not). Answer: ``IMAPSession/authenticated(_:now:into:)``, with a challenge to go
    /// on or an outcome to end it.
    case authenticate(SASLStep)
    /// Run `command` on the signed-in user's mail (`selection` is the selected mailbox, if any). Answer:
    /// ``IMAPSession/completed(_:now:into:)``.
    case run(IMAPCommand, selection: IMAPSelection?)
    /// `IDLE` began: report changes through ``IMAPSession/notify(_:into:)`` until ``idleEnded``.
    case idleStarted(selection: IMAPSelection?)
    /// `IDLE` ended: stop reporting.
    case idleEnded
    /// `STARTTLS` was accepted and its `OK` sent: start the TLS handshake on the connection, then call
    /// ``IMAPSession/tlsEstablished(now:into:)``.
    case startTLS
    /// The next part of the command under way, whose last answer was a part (``IMAPCommandResult/continues``). Asked
    /// by the connection, not the session, once its output has drained: the answer goes to
    /// ``IMAPSession/completed(_:now:into:)`` like the first part's.
    case continueCommand
}

/// The selected mailbox, and whether it was opened read-only (`EXAMINE`, or a `SELECT` answered `[READ-ONLY]`).
public struct IMAPSelection: Sendable, Equatable {
    public var mailbox: IMAPMailboxName
    public var readOnly: Bool

    public init(mailbox: IMAPMailboxName, readOnly: Bool) {
        self.mailbox = mailbox
        self.readOnly = readOnly
    }
}

/// The driver's answer to a sign-in step.
public enum IMAPAuthenticationOutcome: Sendable, Equatable {
    /// Signed in as `user` (the name the driver knows them by).
    case succeeded(user: String)
    /// The mechanism needs another message: send this challenge.
    case challenge(SASLMessage)
    /// Refused, with the RFC 5530 code (`AUTHENTICATIONFAILED`, `AUTHORIZATIONFAILED`, `EXPIRED`, `UNAVAILABLE`).
    /// `errorChallenge` is RFC 7628's: OAUTHBEARER sends its error JSON as a challenge and waits for the client's
    /// dummy answer before the `NO`.
    case failed(IMAPResponseCode, errorChallenge: SASLMessage? = nil)
}

/// The driver's answer to ``IMAPRequest/run(_:selection:)``: the untagged data, then the tagged status.
public struct IMAPCommandResult: Sendable, Equatable {
    public var responses: [IMAPUntaggedResponse]
    public var status: IMAPStatusResponse
    /// Whether this is one part of the answer: its responses are sent, and the rest comes from the driver at
    /// ``IMAPRequest/continueCommand`` (`status` is then unused).
    public private(set) var continues = false

    public init(_ responses: [IMAPUntaggedResponse] = [], status: IMAPStatusResponse) {
        self.responses = responses
        self.status = status
    }

    /// One part of an answer given in parts (a FETCH of many messages), not its last.
    public static func part(_ responses: [IMAPUntaggedResponse]) -> IMAPCommandResult {
        var result = IMAPCommandResult(responses, status: IMAPStatusResponse(.ok, ""))
        result.continues = true
        return result
    }
}
