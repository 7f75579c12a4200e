import SocketServer

/// A session machine that can run under ``TLSTransportMachine``: it asks for TLS (its last queued answer, `220` or
/// `OK Begin TLS`, still leaves in plaintext) and is told when the handshake completed.
public protocol TLSUpgradableMachine: ConnectionStateMachine {
    /// The session answered its protocol's STARTTLS: the transport must start TLS now, after the queued answer.
    var wantsTLS: Bool { get }
    /// The handshake completed: the session reads commands again, now secure.
    mutating func tlsEstablished()
}

/// The transport under a session on a listener with a certificate: plaintext until the session asks for TLS (SMTP's
/// `STARTTLS` answered `220`, RFC 3207; IMAP's answered `OK`, RFC 9051 §6.2.1), or TLS from the first byte on an
/// implicit-TLS port (RFC 8314), through a ``TLSChannel`` over memory BIOs, so the handshake and every record move
/// only when the event loop reads or writes, never blocking it. The session machine stays pure: it sees plaintext
/// bytes and write progress, as on a plain connection, and never a TLS record.
///
/// Once TLS is on, the session's output is encrypted as soon as it is queued and reported to the session as
/// written; the socket's own progress and back-pressure (`writeBlocked`, `writable`) are passed on, so the
/// session's write timeout and input pause still follow the socket. A shutdown of our sending side waits until
/// every record is written. On the implicit port, what the session queues before the handshake completes (IMAP's
/// greeting) is encrypted when it does.
///
/// Not `Sendable` (it holds the channel): like every machine, it is used on its connection's loop only. Inlinable so
/// that each protocol's module compiles it specialized for its session (an unspecialized machine across modules
/// costs metadata lookups on every event).
public struct TLSTransportMachine<Session: TLSUpgradableMachine>: ConnectionStateMachine {
    /// The session over the transport.
    @inlinable public var session: Session { wrapped }
    @usableFromInline var wrapped: Session
    @usableFromInline let context: TLSServerContext
    /// TLS from the first byte (the channel is made when the connection opens).
    @usableFromInline let implicit: Bool
    /// Set from the session's request for TLS on (from the connection's opening on an implicit port).
    @usableFromInline var channel: TLSChannel?
    /// Bytes for the socket once TLS starts: the plaintext answer left unsent at that moment, then TLS records.
    @usableFromInline var ciphertext = OutputBuffer()
    @usableFromInline var socketBlocked = false
    /// The session asked to shut our side while records were still unsent.
    @usableFromInline var shutdownWhenFlushed = false
    /// The session's actions of the event being translated.
    @usableFromInline var sessionActions: [ConnectionAction] = []
    @usableFromInline var plaintext: [UInt8] = []

    /// Wraps a new session.
    /// - Parameter implicit: true on an implicit-TLS port (the handshake first); false to start TLS when the session
    ///   asks for it.
    @inlinable public init(session: Session, context: TLSServerContext, implicit: Bool = false) {
        wrapped = session
        self.context = context
        self.implicit = implicit
    }

    /// Whether the TLS handshake completed.
    @inlinable public var isEncrypted: Bool { channel?.isEstablished ?? false }

    @inlinable public var hasUnsentOutput: Bool { channel == nil ? wrapped.hasUnsentOutput : !ciphertext.isEmpty }

    @inlinable public func withUnsentOutput(_ body: (UnsafeRawBufferPointer) throws -> Int?) rethrows -> Int? {
        channel == nil ? try wrapped.withUnsentOutput(body) : try ciphertext.withUnsentBytes(body)
    }

    @inlinable
    public mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        if implicit, channel == nil, case .opened = event {
            do {
                channel = try TLSChannel(context: context)
            } catch {
                actions.append(.close)
                return
            }
        }
        guard let channel else {
            wrapped.handle(event, now: now, into: &actions)
            if wrapped.wantsTLS { startTLS(now: now, into: &actions) }
            return
        }
        switch event {
        case .bytesRead(let bytes):
            let wasEstablished = channel.isEstablished
            channel.receive(bytes)
            plaintext.removeAll(keepingCapacity: true)
            do {
                let established = try channel.readPlaintext(into: &plaintext)
                if established && !wasEstablished { wrapped.tlsEstablished() }
            } catch {
                return drive(.reset, now: now, into: &actions)  // a failed handshake or a forged record
            }
            if !plaintext.isEmpty {
                let bytes = plaintext
                bytes.withUnsafeBytes { drive(.bytesRead($0), now: now, into: &actions) }
            } else if let sealed = sealSessionOutput() {
                drive(sealed, now: now, into: &actions)  // what the session queued before the handshake completed
            } else {
                finish(now: now, into: &actions)  // a handshake flight to answer, or half a record
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

    /// The session asked for TLS: what it queued (its answer) leaves in plaintext, everything after is TLS.
    @inlinable mutating func startTLS(now: UInt64, into actions: inout [ConnectionAction]) {
        do {
            channel = try TLSChannel(context: context)
        } catch {
            wrapped.handle(.reset, now: now, into: &actions)
            return
        }
        let count = wrapped.withUnsentOutput { bytes -> Int? in
            ciphertext.append(Array(bytes))
            return bytes.count
        }
        if let count, count > 0 { drive(.wrote(count), now: now, into: &actions) }
    }

    /// Encrypts what the session queued, once the handshake is done: the event to tell the session (its bytes
    /// written, or a reset when the channel fails), nil when there was nothing to encrypt yet.
    @inlinable mutating func sealSessionOutput() -> ConnectionEvent? {
        guard let channel, channel.isEstablished, wrapped.hasUnsentOutput else { return nil }
        do {
            let count = try wrapped.withUnsentOutput { bytes throws(TLSError) -> Int? in
                try channel.writePlaintext(bytes)
                return bytes.count
            }
            return count.map { .wrote($0) }
        } catch {
            return .reset
        }
    }

    /// Hands `event` to the session, then encrypts what it queued (reporting it written) until it queues nothing
    /// more, translating its actions for the socket.
    @inlinable mutating func drive(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        var next: ConnectionEvent? = event
        while let current = next {
            sessionActions.removeAll(keepingCapacity: true)
            wrapped.handle(current, now: now, into: &sessionActions)
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
            next = sealSessionOutput()
        }
        finish(now: now, into: &actions)
    }

    /// Moves the records the channel produced into the socket's queue and asks for a write, or carries out a
    /// shutdown that waited for them.
    @inlinable mutating func finish(now: UInt64, into actions: inout [ConnectionAction]) {
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
