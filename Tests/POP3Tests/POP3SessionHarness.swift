@testable import POP3

/// Drives a ``POP3Session`` as a connection would, as ``IMAPSessionHarness`` drives IMAP's.
struct POP3SessionHarness {
    var session: POP3Session
    var output: [UInt8] = []
    var requests: [POP3Request] = []
    var closed = false
    var byteByByte = false

    init(byteByByte: Bool = false, _ configure: (inout POP3SessionConfiguration) -> Void = { _ in }) {
        var configuration = POP3SessionConfiguration()
        configure(&configuration)
        session = POP3Session(configuration: configuration, now: 0)
        self.byteByByte = byteByByte
        var actions: [POP3Session.Action] = []
        session.start(into: &actions)
        apply(actions)
    }

    static func loopback(byteByByte: Bool = false) -> POP3SessionHarness {
        POP3SessionHarness(byteByByte: byteByByte) { $0.allowsPlaintextAuthentication = true }
    }

    mutating func apply(_ actions: [POP3Session.Action]) {
        for action in actions {
            switch action {
            case .send(let bytes): output += bytes
            case .perform(let request): requests.append(request)
            case .closeConnection: closed = true
            }
        }
    }

    mutating func send(_ text: String, now: UInt64 = 0) {
        for chunk in byteByByte ? Array(text.utf8).map({ [$0] }) : [Array(text.utf8)] {
            var actions: [POP3Session.Action] = []
            session.receive(chunk, now: now, into: &actions)
            apply(actions)
            drain()
        }
    }

    mutating func drain() {
        while session.hasBufferedInput {
            var actions: [POP3Session.Action] = []
            session.resume(now: 0, into: &actions)
            apply(actions)
        }
    }

    mutating func take() -> String {
        defer { output = [] }
        return String(decoding: output, as: UTF8.self)
    }

    mutating func takeRequests() -> [POP3Request] {
        defer { requests = [] }
        return requests
    }

    mutating func authenticated(_ outcome: POP3AuthenticationOutcome) {
        var actions: [POP3Session.Action] = []
        session.authenticated(outcome, now: 0, into: &actions)
        apply(actions)
        drain()
    }

    mutating func retrieved(_ message: String?) {
        var actions: [POP3Session.Action] = []
        session.retrieved(message.map { Array($0.utf8) }, now: 0, into: &actions)
        apply(actions)
        drain()
    }

    mutating func committed(_ removed: Bool) {
        var actions: [POP3Session.Action] = []
        session.committed(removed, now: 0, into: &actions)
        apply(actions)
    }

    /// Signs in with a maildrop of `messages`.
    mutating func signIn(_ messages: [POP3Message]) {
        send("USER mrose\r\nPASS secret\r\n")
        authenticated(.succeeded(user: "mrose", maildrop: messages))
        _ = take()
        _ = takeRequests()
    }
}
