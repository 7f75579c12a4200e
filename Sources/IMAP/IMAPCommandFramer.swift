import BufferBudget
import MailDoor

/// Cuts the client's bytes into whole commands (RFC 9051 §2.2, §4.3): lines, and the literals announced at the end
/// of a line by `{n}` (synchronizing: the server first sends a continuation request) or `{n+}` (`LITERAL+` and
/// `LITERAL-`, RFC 7888: the bytes follow at once). Pure and incremental: it takes whatever bytes have arrived, one
/// at a time or all at once, and gives the same events either way.
///
/// The rules, in order:
/// - A line ends at LF; a CR before it is dropped (bare LF is taken, as Dovecot does).
/// - The command's text, all its lines together, may be ``IMAPLimits/maxLineBytes`` long. Past that the command is
///   read to its end without being kept and refused (`lineTooLong`).
/// - A line ending in a literal's marker continues the command after the literal's bytes. A synchronizing literal
///   that would take the command's literals past ``IMAPLimits/maxLiteralBytes`` ends the command at once: the
///   client waits for a continuation request that never comes and reads the `BAD` instead.
/// - A non-synchronizing literal over ``IMAPLimits/maxNonSynchronizingLiteralBytes`` (or over the literal limit) is
///   read and dropped with the rest of its command, then refused; one over ``IMAPLimits/maxLiteralBytes`` is not
///   read at all: the command is refused and the connection closed.
/// - A literal that fits the limits is taken from the process's ``BufferBudget`` (when one is given) before a byte of
///   it is kept; when the budget is spent, a synchronizing literal ends the command at once and a non-synchronizing
///   one is read and dropped, both refused `busy`. The bytes are held (a ``BufferReservation``) until
///   ``releaseDelivered()`` (the command was answered), or until the framer is dropped (the connection ended).
/// - In line mode (``readsLines``) a line is a line: no literal is looked for.
///
/// Memory: the command kept is at most the text limit plus the literal limit; a refused command keeps nothing.
public struct IMAPCommandFramer: SessionFramer {
    /// The limits in force; the session narrows them before sign-in (``IMAPLimits/unauthenticated``). Change them
    /// only between events.
    public var limits: IMAPLimits
    /// What every session's literals share; nil for no bound but the limits.
    public let budget: BufferBudget?
    /// Whether the next event is a bare line rather than a command (set by the session during `AUTHENTICATE` and
    /// `IDLE`). Change it only between events.
    public var readsLines = false

    private var buffer: [UInt8] = []
    /// The command's first bytes, kept even when the command is dropped, for its tag.
    private var head: [UInt8] = []
    /// The current line's last bytes, for a literal's marker.
    private var tail: [UInt8] = []
    private var textBytes = 0
    private var literalBytes = 0
    private var literalRemaining = 0
    /// Why the command in progress is being dropped, once it is.
    private var discarding: IMAPCommandError?
    /// What ``budget`` holds for the command in progress, and for the command handed on and not yet answered.
    private var reservation: BufferReservation?
    private var delivered: BufferReservation?

    private static let headBytes = 64
    private static let tailBytes = 24

    /// A framer with `limits`, its literals taken from `budget` when one is given.
    public init(limits: IMAPLimits, budget: BufferBudget? = nil) {
        self.limits = limits
        self.budget = budget
    }

    /// Forgets the command partly read and the one handed on (their literals go back to the budget), keeping the
    /// limits and the line mode.
    public mutating func reset() {
        var fresh = IMAPCommandFramer(limits: limits, budget: budget)
        fresh.readsLines = readsLines
        self = fresh
    }

    /// Gives back to the budget the literals of the command handed on: it has been answered.
    public mutating func releaseDelivered() {
        delivered = nil
    }

    /// Whether a command is partly read (some of its bytes have arrived, not its end).
    public var isInsideCommand: Bool { textBytes > 0 || literalRemaining > 0 || literalBytes > 0 }

    /// Reads `input` from `index` until an event or the end of the input, advancing `index` past what it read.
    /// - Returns: the event, or nil when the input ran out first (the bytes read are kept for the next call).
    public mutating func next(_ input: [UInt8], from index: inout Int) -> IMAPFramerEvent? {
        while index < input.count {
            if literalRemaining > 0 {
                let take = min(literalRemaining, input.count - index)
                if discarding == nil { buffer.append(contentsOf: input[index..<index + take]) }
                index += take
                literalRemaining -= take
                continue
            }
            let end = input[index...].firstIndex(of: ASCII.lf) ?? input.count
            appendText(input[index..<end])
            index = end
            guard end < input.count else { return nil }
            index += 1
            if let event = lineEnded() { return event }
        }
        return nil
    }

    private mutating func appendText(_ bytes: ArraySlice<UInt8>) {
        guard !bytes.isEmpty else { return }
        if head.count < Self.headBytes { head.append(contentsOf: bytes.prefix(Self.headBytes - head.count)) }
        tail.append(contentsOf: bytes.suffix(Self.tailBytes))
        if tail.count > Self.tailBytes { tail.removeFirst(tail.count - Self.tailBytes) }
        textBytes += bytes.count
        if discarding == nil && textBytes > limits.maxLineBytes {
            discarding = .lineTooLong
            buffer = []
        }
        if discarding == nil { buffer.append(contentsOf: bytes) }
    }

    private mutating func lineEnded() -> IMAPFramerEvent? {
        if tail.last == ASCII.cr {
            tail.removeLast()
            if discarding == nil { buffer.removeLast() }
        }
        if readsLines {
            return finish(discarding.map { .refused(tag: nil, $0) } ?? .line(buffer))
        }
        guard let marker = Self.literalMarker(tail) else {
            return finish(discarding.map { .refused(tag: tag, $0) } ?? .command(buffer))
        }
        tail = []
        let size = marker.size ?? Int.max
        if discarding != nil || (marker.nonSynchronizing && size > limits.maxNonSynchronizingLiteralBytes)
            || size > limits.maxLiteralBytes - literalBytes
        {
            // This literal is not kept. A synchronizing one ends the command (the client waits for a continuation
            // request); a non-synchronizing one is on its way and is skipped, unless it is beyond every limit.
            let error =
                discarding
                ?? (marker.nonSynchronizing && size <= limits.maxLiteralBytes
                    ? .nonSynchronizingLiteralTooLarge : .literalTooLarge)
            guard marker.nonSynchronizing else { return finish(.refused(tag: tag, error)) }
            guard size <= limits.maxLiteralBytes else { return finish(.refusedAndClosed(tag: tag, error)) }
            discarding = error
            buffer = []
            literalRemaining = size
            return nil
        }
        if let budget, size > 0 {
            let held = reservation ?? BufferReservation(budget)
            guard held.grow(to: held.bytes + size, step: 0) else {
                // Every session's literals together are at the budget: this one is refused, not kept.
                guard marker.nonSynchronizing else { return finish(.refused(tag: tag, .busy)) }
                discarding = .busy
                buffer = []
                literalRemaining = size
                return nil
            }
            reservation = held
        }
        literalBytes += size
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
        literalRemaining = size
        return marker.nonSynchronizing ? nil : .literalContinuation
    }

    private mutating func finish(_ event: IMAPFramerEvent) -> IMAPFramerEvent {
        delivered = reservation
        reservation = nil
        buffer = []
        head = []
        tail = []
        textBytes = 0
        literalBytes = 0
        literalRemaining = 0
        discarding = nil
        return event
    }

    /// The tag of the command in progress, when its first bytes hold a valid one.
    private var tag: String? {
        let candidate = head.prefix { $0 != ASCII.space }
        guard !candidate.isEmpty, candidate.count < head.count || head.count < Self.headBytes,
            candidate.allSatisfy(IMAPCharacters.isTagChar)
        else { return nil }
        return String(decoding: candidate, as: UTF8.self)
    }

    /// The literal announced at the end of `line` (`{n}`, `{n+}`, `~{n}`): its size (nil when too many digits to
    /// hold) and whether it is non-synchronizing.
    static func literalMarker(_ line: [UInt8]) -> (size: Int?, nonSynchronizing: Bool)? {
        guard line.last == UInt8(ascii: "}"), let open = line.lastIndex(of: UInt8(ascii: "{")) else { return nil }
        var digits = line[(open + 1)..<(line.count - 1)]
        let nonSynchronizing = digits.last == UInt8(ascii: "+")
        if nonSynchronizing { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy(ASCII.isDigit) else { return nil }
        guard digits.count <= 12 else { return (nil, nonSynchronizing) }
        return (digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }, nonSynchronizing)
    }
}
