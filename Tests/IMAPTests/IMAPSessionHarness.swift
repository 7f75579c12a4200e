@testable import IMAP

/// Drives an ``IMAPSession`` as a connection would: feeds the client's text (whole or one byte at a time), writes
/// what it sends into `output`, keeps its requests for the test to answer, and resumes it while input waits.
struct IMAPSessionHarness {
    var session: IMAPSession
    var now: UInt64 = 0
    var output: [UInt8] = []
    var requests: [IMAPRequest] = []
    var closed = false
    var byteByByte = false
    /// How many turns the last feed took (a turn ends at the pipelining limit).
    var turns = 0

    init(byteByByte: Bool = false, _ configure: (inout IMAPSessionConfiguration) -> Void = { _ in }) {
        var configuration = IMAPSessionConfiguration()
        configure(&configuration)
        session = IMAPSession(configuration: configuration, now: 0)
        self.byteByByte = byteByByte
        var actions: [IMAPSession.Action] = []
        session.start(into: &actions)
        apply(actions)
    }

    /// A session whose client is on loopback (plaintext sign-in allowed).
    static func loopback(byteByByte: Bool = false) -> IMAPSessionHarness {
        IMAPSessionHarness(byteByByte: byteByByte) { $0.allowsPlaintextAuthentication = true }
    }

    mutating func apply(_ actions: [IMAPSession.Action]) {
        for action in actions {
            switch action {
            case .send(let bytes): output += bytes
            case .perform(let request): requests.append(request)
            case .closeConnection: closed = true
            }
        }
    }

    /// The client sends `text`; the harness then resumes the session while input waits, as a driver does once its
    /// output is written.
    mutating func send(_ text: String) {
        send(Array(text.utf8))
    }

    mutating func send(_ bytes: [UInt8]) {
        turns = 0
        for chunk in byteByByte ? bytes.map({ [$0] }) : [bytes] {
            var actions: [IMAPSession.Action] = []
            session.receive(chunk, now: now, into: &actions)
            turns += 1
            apply(actions)
            drain()
        }
    }

    mutating func drain() {
        while session.hasBufferedInput {
            var actions: [IMAPSession.Action] = []
            session.resume(now: now, into: &actions)
            turns += 1
            apply(actions)
        }
    }

    /// What the session sent since the last call, as text.
    mutating func take() -> String {
        defer { output = [] }
        return String(decoding: output, as: UTF8.self)
    }

    /// The requests since the last call.
    mutating func takeRequests() -> [IMAPRequest] {
        defer { requests = [] }
        return requests
    }

    mutating func authenticated(_ outcome: IMAPAuthenticationOutcome) {
        var actions: [IMAPSession.Action] = []
        session.authenticated(outcome, now: now, into: &actions)
        apply(actions)
        drain()
    }

    mutating func complete(_ responses: [IMAPUntaggedResponse] = [], _ status: IMAPStatusResponse) {
        var actions: [IMAPSession.Action] = []
        session.completed(IMAPCommandResult(responses, status: status), now: now, into: &actions)
        apply(actions)
        drain()
    }

    mutating func tick(to time: UInt64) {
        now = time
        var actions: [IMAPSession.Action] = []
        session.timerFired(now: now, into: &actions)
        apply(actions)
    }

    /// Signs in as `user` through LOGIN.
    mutating func signIn(_ user: String = "mrc") {
        send("s1 LOGIN \(user) secret\r\n")
        authenticated(.succeeded(user: user))
        _ = take()
        _ = takeRequests()
    }

    /// Signs in and selects INBOX.
    mutating func select() {
        signIn()
        send("s2 SELECT INBOX\r\n")
        complete([.exists(0)], IMAPStatusResponse(.ok, code: .readWrite, "SELECT completed"))
        _ = take()
        _ = takeRequests()
    }

    static let minute: UInt64 = 60_000_000_000
}
