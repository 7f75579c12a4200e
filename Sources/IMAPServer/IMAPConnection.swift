import IMAP
import MailDoorServer

extension IMAPSession: SessionMachine {}

/// One IMAP connection's session as ``MailConnectionMachine`` serves it: ``IMAPSession`` and the connection's
/// ``IMAPConnectionDriver``. Requests become ``MailJob``s (an IDLE's start and end are not awaited: the loop starts and
/// cancels the IDLE's one task); changes an IDLE saw after it ended are held and sent before the next command's answer.
struct IMAPConnection: ServedSession {
    var session: IMAPSession
    private let driver: IMAPConnectionDriver
    /// Changes seen by an IDLE that ended before they arrived: sent before the next command's answer.
    private var heldNotices: [IMAPUntaggedResponse] = []

    init(session: IMAPSession, driver: IMAPConnectionDriver) {
        self.session = session
        self.driver = driver
    }

    mutating func complete(_ value: any AnyObject & Sendable, now: UInt64, into actions: inout [IMAPSession.Action])
        -> ServedAnswer?
    {
        guard let completion = value as? MailCompletion<IMAPListener> else { return nil }
        switch completion.outcome {
        case .authenticated(let result):
            session.authenticated(result, now: now, into: &actions)
            return .answered
        case .completed(var result):
            if !heldNotices.isEmpty {
                result.responses = heldNotices + result.responses
                heldNotices = []
            }
            session.completed(result, now: now, into: &actions)
            return result.continues ? .part(next: MailJob<IMAPListener>(.continueCommand, driver: driver)) : .answered
        case .notices(let responses):
            if !session.notify(responses, into: &actions) { heldNotices += responses }
            return .notice
        case .ended(let end):
            session.end(end.text, into: &actions)
            return .answered
        }
    }

    func effect(of action: IMAPSession.Action) -> ServedEffect {
        switch action {
        case .send(let bytes):
            return .send(bytes)
        case .perform(.startTLS):
            return .startTLS
        case .perform(.idleEnded):
            // A job like the IDLE's start, so that the loop carries the two out in the order asked, even when one
            // read held both.
            return .job(MailJob<IMAPListener>(.idleEnded, driver: driver), awaited: false)
        case .perform(let request):
            switch request {
            case .login, .authenticate, .run: return .job(MailJob<IMAPListener>(request, driver: driver), awaited: true)
            default: return .job(MailJob<IMAPListener>(request, driver: driver), awaited: false)
            }
        case .closeConnection:
            return .closeAfterOutput
        }
    }

    mutating func connectionClosed() {
        session.connectionClosed()
        driver.connectionClosed()
        driver.endIdle()
    }
}
