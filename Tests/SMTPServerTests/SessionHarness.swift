import SASL
import SocketServer
import Synchronization
import Testing

@testable import SMTPServer

/// Drives one `SMTPSessionMachine` with no socket: the test plays the event loop, a mock clock and the
/// sink, and reads the actions back as short strings.
struct SessionHarness {
    typealias Machine = SMTPSessionMachine

    static let second: UInt64 = 1_000_000_000

    var machine: Machine
    var now: UInt64 = 1_000 * SessionHarness.second
    /// Jobs handed out and not yet completed, oldest first.
    var jobs: [Machine.Job] = []
    /// What the machine reported to the observer.
    let events = EventLog()

    /// The observer's reports, in order.
    final class EventLog: Sendable {
        let list = Mutex<[SMTPSessionEvent]>([])
        var all: [SMTPSessionEvent] { list.withLock { $0 } }
    }

    init(
        refusing: Bool = false, peer: String = "192.0.2.7", _ configure: (inout SMTPServerConfiguration) -> Void = { _ in }
    ) {
        var configuration = SMTPServerConfiguration(hostname: "mx.test")
        configure(&configuration)
        let events = events
        machine = Machine(
            shared: SMTPSessionShared(configuration: configuration) { event in events.list.withLock { $0.append(event) }
            },
            peer: peer, refusing: refusing)
    }

    /// Sends one event; returns the actions, described.
    @discardableResult
    mutating func send(_ event: ConnectionEvent) -> [String] {
        var actions: [ConnectionAction] = []
        machine.handle(event, now: now, into: &actions)
        return actions.map { action in
            switch action {
            case .write: return "write"
            case .setInterest(let read, let write): return "interest(read: \(read), write: \(write))"
            case .armTimer(let deadline): return "timer(+\((Int64(deadline) - Int64(now)) / 1_000_000_000)s)"
            case .cancelTimer: return "cancelTimer"
            case .perform(let value):
                guard let job = value as? Machine.Job else { return "perform(?)" }
                jobs.append(job)
                switch job.request {
                case .verdict(let recipient): return "perform(verdict \(recipient))"
                case .deliver(let envelope, _):
                    return "perform(deliver to \(envelope.recipients.joined(separator: ",")))"
                case .authenticate(let username, let password): return "perform(authenticate \(username):\(password))"
                case .confirm(let identity): return "perform(confirm \(identity))"
                case .signIn(.password(let username, let password), let client):
                    return "perform(signIn \(username):\(password) from \(client))"
                case .signIn(.bearer(let username, let token), let client):
                    return "perform(signIn bearer \(username ?? "-"):\(token) from \(client))"
                case .admit(let mailFrom, let signIn): return "perform(admit \(mailFrom) as \(signIn.identity))"
                case .stall(let seconds): return "perform(stall \(seconds)s)"
                }
            case .shutdownWrite: return "shutdownWrite"
            case .close: return "close"
            }
        }
    }

    /// Bytes arrive.
    @discardableResult
    mutating func receive(_ text: String) -> [String] {
        receive(bytes: Array(text.utf8))
    }

    /// Bytes arrive.
    @discardableResult
    mutating func receive(bytes: [UInt8]) -> [String] {
        bytes.withUnsafeBytes { send(.bytesRead($0)) }
    }

    /// Completes the oldest job with `outcome`; returns the actions.
    @discardableResult
    mutating func complete(_ outcome: Machine.Completion.Outcome) -> [String] {
        guard !jobs.isEmpty else { return ["no job"] }
        jobs.removeFirst()
        return send(.completed(Machine.Completion(outcome)))
    }

    /// The socket takes everything: returns the bytes written and the actions after.
    mutating func writeAll() -> (written: String, actions: [String]) {
        var written = ""
        var actions: [String] = []
        while machine.hasUnsentOutput {
            let count = machine.withUnsentOutput { bytes in
                written += String(decoding: bytes, as: UTF8.self)
                return bytes.count
            }
            actions += send(.wrote(count ?? 0))
        }
        return (written, actions)
    }

    /// Moves the clock on.
    mutating func advance(seconds: UInt64) {
        now += seconds * SessionHarness.second
    }
}

/// A whole conversation against the machine with a scripted sink, and what came of it.
struct Conversation: Equatable {
    /// Everything the machine wrote, in order.
    var replies = ""
    /// What the sink was asked to store.
    var deliveries: [SMTPEnvelope] = []
    var messages: [[UInt8]] = []
    /// Whether the machine asked for the socket to be closed or its sending side shut.
    var ended = false
    /// What the machine reported to the observer.
    var events: [SMTPSessionEvent] = []

    /// Reply lines, without CRLF.
    var lines: [String] {
        replies.split(separator: "\r\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// The scripted sink's verdict: `alice`, `bob` and `carol` at `local.test` exist; other local
    /// names do not; every other domain is remote.
    static func verdict(_ address: String) -> SMTPRecipientVerdict {
        let parts = address.lowercased().split(separator: "@")
        guard parts.count == 2, parts[1] == "local.test" else { return .relayDenied }
        return ["alice", "bob", "carol"].contains(parts[0]) ? .accept : .unknownLocal
    }

    /// Runs `input` through a fresh machine in chunks of `chunk` bytes (0: all at once), completing
    /// each job at once: verdicts by `verdict(_:)`, deliveries as `Q<n>`, failed for now when the sender
    /// is `fail@remote.test`, refused for good when it is `full@`, `bad@` or `gone@remote.test`.
    static func run(
        _ input: [UInt8], chunk: Int, peer: String = "192.0.2.7",
        _ configure: (inout SMTPServerConfiguration) -> Void = { _ in }
    ) -> Conversation {
        var h = SessionHarness(peer: peer, configure)
        var result = Conversation()
        func settle() {
            while true {
                let (written, actions) = h.writeAll()
                result.replies += written
                if actions.contains("close") || actions.contains("shutdownWrite") { result.ended = true }
                guard let job = h.jobs.first else { return }
                let outcome: SMTPSessionMachine.Completion.Outcome
                switch job.request {
                case .verdict(let recipient):
                    outcome = .verdict(verdict(recipient))
                case .authenticate(_, let password):
                    outcome = .authenticated(
                        password == "tm_pro_good" ? "user-1" : password == "tm_pro_once" ? "user-2" : nil)
                case .confirm(let identity):
                    outcome = .confirmed(identity == "user-1")
                case .signIn(let credentials, _):
                    outcome = .signedIn(submissionSignIn(credentials))
                case .admit(let mailFrom, let signIn):
                    outcome = .admitted(admit(mailFrom, signIn))
                case .stall:
                    outcome = .stalled
                case .deliver(let envelope, let data):
                    result.deliveries.append(envelope)
                    result.messages.append(data)
                    let foreignFrom = String(decoding: data, as: UTF8.self).contains("From: mallory@")
                    outcome =
                        switch envelope.mailFrom {
                        case _ where envelope.signIn != nil && foreignFrom: .refused(.reply(Self.foreignFrom))
                        case "fail@remote.test": .deliveryFailed
                        case "full@remote.test": .refused(.mailboxFull)
                        case "bad@remote.test": .refused(.unreadableContent)
                        case "gone@remote.test": .refused(.noSuchRecipient)
                        default: .delivered(queueID: "Q\(result.deliveries.count)")
                        }
                }
                let after = h.complete(outcome)
                if after.contains("close") { result.ended = true }
            }
        }
        h.send(.opened)
        settle()
        let size = chunk == 0 ? max(1, input.count) : chunk
        var start = 0
        while start < input.count && !result.ended {
            let actions = h.receive(bytes: Array(input[start..<min(input.count, start + size)]))
            if actions.contains("close") { result.ended = true }
            start += size
            settle()
        }
        result.events = h.events.all
        return result
    }

    /// The scripted submission sink's sign-in: the password `good` signs its user in, `readonly` signs it in to a
    /// mailbox that sends nothing, `revoked` to one whose credential is gone by `MAIL FROM`; the token `send-token`
    /// signs in (as the user named, else `owner@local.test`), `read-token` is refused for its scope, `busy` finds the
    /// store down; anything else is refused.
    static func submissionSignIn(_ credentials: SMTPAuthCredentials) -> SMTPSignInOutcome {
        switch credentials {
        case .password(let username, "good"): .signedIn(SMTPSignIn(identity: username, held: "sends"))
        case .password(let username, "readonly"): .signedIn(SMTPSignIn(identity: username, held: "readonly"))
        case .password(let username, "revoked"): .signedIn(SMTPSignIn(identity: username, held: "revoked"))
        case .password: .refused
        case .bearer(let username, "send-token"):
            .signedIn(SMTPSignIn(identity: username ?? "owner@local.test", held: "sends"))
        case .bearer(_, "read-token"): .tokenRefused(errorChallenge: SASLMessage(base64: "eyJzdGF0dXMiOiJ4In0="))
        case .bearer(_, "busy"): .unavailable
        case .bearer: .tokenRefused(errorChallenge: SASLMessage(base64: "e30="))
        }
    }

    /// The scripted submission sink's `MAIL FROM`: a read-only mailbox refused `550 5.7.1`, a revoked one ended, any
    /// address but the mailbox's `553 5.7.1`.
    static func admit(_ mailFrom: String, _ signIn: SMTPSignIn) -> SMTPSenderVerdict {
        switch signIn.held as? String {
        case "readonly": .refused(SMTPSinkReply(550, 7, 1, "A Mail.td account sends nothing"))
        case "revoked": .signInEnded
        default: mailFrom == signIn.identity ? .accept : .refused(SMTPSinkReply(553, 7, 1, "Not your address"))
        }
    }

    /// The scripted submission sink's refusal of a message whose `From` is mallory's.
    static let foreignFrom = SMTPSinkReply(550, 7, 1, "The From of the email must be the mailbox")

    /// Runs `input` whole and one byte at a time, expects the same outcome, and returns it.
    static func both(
        _ input: String, peer: String = "192.0.2.7", _ configure: (inout SMTPServerConfiguration) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Conversation {
        both(bytes: Array(input.utf8), peer: peer, configure, sourceLocation: sourceLocation)
    }

    /// Runs `input` whole and one byte at a time, expects the same outcome, and returns it.
    static func both(
        bytes input: [UInt8], peer: String = "192.0.2.7",
        _ configure: (inout SMTPServerConfiguration) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Conversation {
        let whole = run(input, chunk: 0, peer: peer, configure)
        let byteByByte = run(input, chunk: 1, peer: peer, configure)
        #expect(whole == byteByByte, "whole and byte-by-byte input differ", sourceLocation: sourceLocation)
        return whole
    }
}
