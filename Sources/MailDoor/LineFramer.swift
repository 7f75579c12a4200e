/// Cuts the client's bytes into lines, for a session whose every unit is a line (POP3's commands and SASL responses):
/// IMAP's framer's line mode (``SessionFramer``), with nothing else to look for. Pure and incremental: the same events
/// whether the bytes come whole or one at a time.
///
/// The rules, in order:
/// - A line ends at LF; a CR before it is dropped (bare LF is taken, as IMAP's framer takes it).
/// - A line may be ``maxLineBytes`` long, its CR counted. Past that it is read to its end without being kept and
///   refused (``Event/tooLong``); the next line follows.
///
/// Memory: the line kept is at most ``maxLineBytes``; a refused line keeps nothing.
public struct LineFramer: SessionFramer {
    /// What the framer found.
    public enum Event: Sendable, Equatable {
        /// A line, its line end removed.
        case line([UInt8])
        /// A line over ``LineFramer/maxLineBytes``, read to its end and dropped.
        case tooLong
    }

    /// The most bytes of a line, its CR counted and its LF not. Change it only between events.
    public var maxLineBytes: Int
    private var line: [UInt8] = []
    /// The bytes of the line so far, kept or not.
    private var lineBytes = 0

    /// A framer of lines up to `maxLineBytes` long.
    public init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    public mutating func next(_ input: [UInt8], from index: inout Int) -> Event? {
        guard index < input.count else { return nil }
        let end = input[index...].firstIndex(of: ASCII.lf) ?? input.count
        lineBytes += end - index
        if lineBytes <= maxLineBytes {
            line.append(contentsOf: input[index..<end])
        } else {
            line = []
        }
        index = end
        guard end < input.count else { return nil }
        index += 1
        let event: Event
        if lineBytes > maxLineBytes {
            event = .tooLong
        } else {
            if line.last == ASCII.cr { line.removeLast() }
            event = .line(line)
        }
        reset()
        return event
    }

    public mutating func reset() {
        line = []
        lineBytes = 0
    }
}
