import BufferBudget

/// The message text after `DATA`, read as a stream: dot-unstuffing, the `<CRLF>.<CRLF>` end mark and
/// the size cap. Pure; holds no line, only the text so far (at most `limit` bytes), each byte of it taken from the
/// process's ``BufferBudget`` first when one is given (``starved`` once it cannot be: the text is then dropped).
///
/// Only CRLF ends a line: a bare CR or LF is text, and `<LF>.<LF>` or `<CR>.<CR>` never ends the
/// message, so that no sender can smuggle a second message past a server that reads line ends
/// differently (the 2023 "SMTP smuggling" attacks).
struct SMTPDataReader {
    enum State {
        /// After CRLF (or at the start): a dot here is stuffing or the end mark.
        case lineStart
        /// Inside a line.
        case inLine
        /// A CR inside a line, not yet written: CRLF, or a bare CR.
        case sawCR
        /// A dot at the start of a line, not written.
        case dotAtLineStart
        /// A dot then CR at the start of a line: with LF, the end mark.
        case dotCR
    }

    /// Most bytes of text kept; beyond, the text is dropped and only counted.
    let limit: Int
    private(set) var state = State.lineStart
    /// The text so far, unstuffed; emptied once `size` passes `limit`.
    private(set) var text: [UInt8] = []
    /// Bytes of unstuffed text seen, kept or not.
    private(set) var size = 0

    /// The bytes of the budget the text holds; nil without a budget, and once the text is dropped.
    private(set) var reservation: BufferReservation?
    /// Whether the budget could not hold the text, which was then dropped (answered `452 4.3.1`).
    private(set) var starved = false

    /// How much more of the budget the text takes each time it needs more.
    static let reservationStep = 64 * 1024

    init(limit: Int, budget: BufferBudget? = nil) {
        self.limit = limit
        reservation = budget.map(BufferReservation.init)
    }

    /// Whether the text was larger than `limit` (and so was not kept).
    var overflowed: Bool { size > limit }

    /// Reads `bytes` up to and including the end mark.
    /// - Returns: how many bytes were read, and whether the end mark was among them.
    mutating func consume(_ bytes: UnsafeBufferPointer<UInt8>) -> (consumed: Int, finished: Bool) {
        let cr = UInt8(ascii: "\r")
        let lf = UInt8(ascii: "\n")
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch state {
            case .inLine:
                // The common case: copy the run up to the next CR at once.
                var end = index
                while end < bytes.count && bytes[end] != cr { end += 1 }
                append(UnsafeBufferPointer(rebasing: bytes[index..<end]))
                index = end
                if end < bytes.count {
                    state = .sawCR
                    index += 1
                }
                continue
            case .lineStart:
                if byte == UInt8(ascii: ".") {
                    state = .dotAtLineStart
                } else if byte == cr {
                    state = .sawCR
                } else {
                    append(byte)
                    state = .inLine
                }
            case .dotAtLineStart:
                // The dot was stuffing unless CRLF follows (RFC 5321 §4.5.2): it is dropped either way.
                if byte == cr {
                    state = .dotCR
                } else {
                    append(byte)
                    state = .inLine
                }
            case .sawCR:
                append(cr)
                if byte == lf {
                    append(lf)
                    state = .lineStart
                } else if byte != cr {
                    append(byte)
                    state = .inLine
                }
            case .dotCR:
                if byte == lf {
                    state = .lineStart
                    return (index + 1, true)
                }
                // `.<CR>` and more: a stuffed line holding a CR; take the byte again after that CR.
                state = .sawCR
                continue
            }
            index += 1
        }
        return (index, false)
    }

    private mutating func append(_ byte: UInt8) {
        size += 1
        if size <= limit && fits(1) {
            text.append(byte)
        } else if !text.isEmpty {
            drop()
        }
    }

    private mutating func append(_ run: UnsafeBufferPointer<UInt8>) {
        guard !run.isEmpty else { return }
        size += run.count
        if size <= limit && fits(run.count) {
            text.append(contentsOf: run)
        } else if !text.isEmpty {
            drop()
        }
    }

    /// Whether `count` more bytes of text may be kept: the budget holds them (taken now when it did not yet).
    private mutating func fits(_ count: Int) -> Bool {
        guard !starved else { return false }
        guard let reservation, text.count + count > reservation.bytes else { return true }
        if reservation.grow(to: text.count + count, step: Self.reservationStep) { return true }
        starved = true
        drop()
        return false
    }

    /// The text is not kept: it and its bytes of the budget go.
    private mutating func drop() {
        text = []
        reservation = nil
    }
}
