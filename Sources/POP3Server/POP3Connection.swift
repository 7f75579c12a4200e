import MailDoorServer
import POP3

extension POP3Session: SessionMachine {}

/// One POP3 connection's session as ``MailConnectionMachine`` serves it: ``POP3Session`` and the connection's
/// ``POP3ConnectionDriver``. Every request is awaited: the session reads no further command until it is answered.
struct POP3Connection: ServedSession {
    var session: POP3Session
    let driver: POP3ConnectionDriver

    mutating func complete(_ value: any AnyObject & Sendable, now: UInt64, into actions: inout [POP3Session.Action])
        -> ServedAnswer?
    {
        guard let completion = value as? MailCompletion<POP3Listener> else { return nil }
        switch completion.outcome {
        case .authenticated(let outcome): session.authenticated(outcome, now: now, into: &actions)
        case .retrieved(let message): session.retrieved(message, now: now, into: &actions)
        case .committed(let removed): session.committed(removed, now: now, into: &actions)
        case .ended(let end): session.end(end.text, into: &actions)
        }
        return .answered
    }

    func effect(of action: POP3Session.Action) -> ServedEffect {
        switch action {
        case .send(let bytes): return .send(bytes)
        case .perform(.startTLS): return .startTLS
        case .perform(let request): return .job(MailJob<POP3Listener>(request, driver: driver), awaited: true)
        case .closeConnection: return .closeAfterOutput
        }
    }
}
