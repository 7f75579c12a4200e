/// The reading and the idle clock of a mail door's session (IMAP's `IMAPSession`, POP3's `POP3Session`), written once:
/// whether the driver should read more from the socket, whether input waits that the session would read, and when it
/// next needs its timer. A session says where its conversation stands (``stage``) and how long the client may stay
/// silent in it (``timeout``); the three answers follow from those and its input.
package protocol MailDoorSession {
    associatedtype Framer: SessionFramer

    /// The client's bytes not yet read as commands.
    var input: SessionInput<Framer> { get }
    /// When the client was last heard from (or the driver last answered), in monotonic nanoseconds.
    var lastHeard: UInt64 { get }
    /// How long the client may stay silent now (before and after sign-in).
    var timeout: Duration { get }
    /// Where the conversation stands, as reading and the clock see it.
    var stage: MailDoorStage { get }
}

/// Where a mail door's conversation stands, as its reading and its idle clock see it.
package enum MailDoorStage: Equatable, Sendable {
    /// The next bytes are a command.
    case readingCommands
    /// The next line belongs to an exchange under way (an `AUTHENTICATE` step, `IDLE`'s `DONE`): read, and timed.
    case exchanging
    /// The driver works on a command, or the TLS handshake runs: input waits unread and the clock stops.
    case waiting
    /// The connection is to be closed.
    case closed
}

extension MailDoorSession {
    /// Whether the driver should read more from the socket: false once the input waiting to be read reaches its
    /// limit (``SessionInput/isFull``), and after close.
    package var wantsInput: Bool {
        stage != .closed && !input.isFull
    }

    /// Whether input is waiting that the session's `resume(now:into:)` would read (a turn ended at its command limit).
    package var hasBufferedInput: Bool { stage == .readingCommands && input.hasWaitingBytes }

    /// When the session next needs its `timerFired(now:)`: ``timeout`` after the client was last heard; nil while the
    /// driver works and once closed.
    package var deadline: UInt64? {
        switch stage {
        case .closed, .waiting: nil
        case .readingCommands, .exchanging: lastHeard &+ MailDoorTimeouts.nanoseconds(timeout)
        }
    }
}
