import ServerTLS
import SocketServer

/// The transport under an SMTP session on a listener with a certificate: plaintext until the session answers
/// `STARTTLS` with `220`, then TLS (RFC 3207) through a ``TLSChannel`` over memory BIOs, so the handshake and every
/// record move only when the event loop reads or writes, never blocking it. The session machine stays pure: it sees
/// plaintext bytes and write progress, as on a plain connection, and never a TLS record.
///
/// Once TLS is on, the session's output is encrypted as soon as it is queued and reported to the session as
/// written; the socket's own progress and back-pressure (`writeBlocked`, `writable`) are passed on, so the
/// session's write timeout and input pause still follow the socket. A shutdown of our sending side waits until
/// every record is written.
///
/// Not `Sendable` (it holds the channel): like every machine, it is used on its connection's loop only.
struct SMTPTransportMachine: ConnectionStateMachine {
    private(set) var session: SMTPSessionMachine
    private let context: TLSServerContext
    /// Set from the `220` on.
    private var channel: TLSChannel?
    /// Bytes for the socket once TLS starts: the plaintext `220` left unsent at that moment, then TLS records.
    private var ciphertext = OutputBuffer()
    private var socketBlocked = false
    /// The session asked to shut our side while records were still unsent.
    private var shutdownWhenFlushed = false
    /// The session's actions of the event being translated.
    private var sessionActions: [ConnectionAction] = []
    private var plaintext: [UInt8] = []

    /// Wraps a new session; TLS starts when the session asks for it.
    init(session: SMTPSessionMachine, context: TLSServerContext) {
        self.session = session
        self.context = context
    }

    /// Whether the TLS handshake completed.
    var isEncrypted: Bool { channel?.isEstablished ?? false }

    var hasUnsentOutput: Bool { channel == nil ? session.hasUnsentOutput : !ciphertext.isEmpty }

    func withUnsentOutput(_ body: (UnsafeRawBufferPointer) throws -> Int?) rethrows -> Int? {
        channel == nil ? try session.withUnsentOutput(body) : try ciphertext.withUnsentBytes(body)
    }

    mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        guard let channel else {
            session.handle(event, now: now, into: &actions)
            if session.wantsTLS { startTLS(now: now, into: &actions) }
            return
        }
        switch event {
        case .bytesRead(let bytes):
            let wasEstablished = channel.isEstablished
            channel.receive(bytes)
            plaintext.removeAll(keepingCapacity: true)
            do {
                let established = try channel.readPlaintext(into: &plaintext)
                if established && !wasEstablished { session.tlsEstablished() }
            } catch {
                return drive(.reset, now: now, into: &actions)  // a failed handshake or a forged record
            }
            if plaintext.isEmpty {
                finish(now: now, into: &actions)  // a handshake flight to answer, or half a record
            } else {
                let bytes = plaintext
                bytes.withUnsafeBytes { drive(.bytesRead($0), now: now, into: &actions) }
            }
        case .wrote(let count):
            ciphertext.consume(count)
            socketBlocked = false
            if ciphertext.isEmpty && shutdownWhenFlushed {
                shutdownWhenFlushed = false
                actions.append(.shutdownWrite)
            }
        case .writeBlocked:
            socketBlocked = true
            drive(.writeBlocked, now: now, into: &actions)
        case .writable:
            socketBlocked = false
            drive(.writable, now: now, into: &actions)
        default:
            drive(event, now: now, into: &actions)
        }
    }

    /// The session answered `STARTTLS`: what it queued (the `220`) leaves in plaintext, everything after is TLS.
    private mutating func startTLS(now: UInt64, into actions: inout [ConnectionAction]) {
        do {
            channel = try TLSChannel(context: context)
        } catch {
            session.handle(.reset, now: now, into: &actions)
            return
        }
        let count = session.withUnsentOutput { bytes -> Int? in
            ciphertext.append(Array(bytes))
            return bytes.count
        }
        if let count, count > 0 { drive(.wrote(count), now: now, into: &actions) }
    }

    /// Hands `event` to the session, then encrypts what it queued (reporting it written) until it queues nothing
    /// more, translating its actions for the socket.
    private mutating func drive(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        var next: ConnectionEvent? = event
        while let current = next {
            next = nil
            sessionActions.removeAll(keepingCapacity: true)
            session.handle(current, now: now, into: &sessionActions)
            for action in sessionActions {
                switch action {
                case .write:
                    break  // encrypted below
                case .shutdownWrite:
                    shutdownWhenFlushed = true
                default:
                    actions.append(action)
                }
            }
            if case .close? = sessionActions.last { return }
            guard let channel, channel.isEstablished, session.hasUnsentOutput else { continue }
            do {
                let count = try session.withUnsentOutput { bytes throws(TLSError) -> Int? in
                    try channel.writePlaintext(bytes)
                    return bytes.count
                }
                if let count { next = .wrote(count) }
            } catch {
                next = .reset
            }
        }
        finish(now: now, into: &actions)
    }

    /// Moves the records the channel produced into the socket's queue and asks for a write, or carries out a
    /// shutdown that waited for them.
    private mutating func finish(now: UInt64, into actions: inout [ConnectionAction]) {
        if let channel {
            while true {
                let pending = channel.pendingCiphertext
                if pending == 0 { break }
                ciphertext.withAppendableRoom(atMost: pending) { channel.takeCiphertext($0) }
            }
        }
        if ciphertext.isEmpty {
            if shutdownWhenFlushed {
                shutdownWhenFlushed = false
                actions.append(.shutdownWrite)
            }
        } else if !socketBlocked {
            actions.append(.write)
        }
    }
}
