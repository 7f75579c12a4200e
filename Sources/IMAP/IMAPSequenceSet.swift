import MailDoor

/// A set of message sequence numbers or UIDs as a command names it (RFC 9051 §9 `sequence-set`): ranges whose ends
/// may be `*` (the last message), or `$`, the result saved by the last `SEARCH ... RETURN (SAVE)` (RFC 5182).
public enum IMAPSequenceSet: Sendable, Equatable {
    /// Ranges and single numbers in the order given (`2,4:6,*`).
    case ranges([IMAPSequenceRange])
    /// `$`: the saved search result.
    case savedResult

    /// Reads a sequence set, refusing one of more than ``IMAPLimits/maxSequenceSetRanges`` ranges.
    static func read(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPSequenceSet {
        if reader.take(UInt8(ascii: "$")) { return .savedResult }
        var ranges: [IMAPSequenceRange] = []
        repeat {
            guard ranges.count < reader.limits.maxSequenceSetRanges else { throw .sequenceSetTooLarge }
            let first = try readNumber(&reader)
            let last = reader.take(UInt8(ascii: ":")) ? try readNumber(&reader) : first
            ranges.append(IMAPSequenceRange(first, last))
        } while reader.take(UInt8(ascii: ","))
        return .ranges(ranges)
    }

    private static func readNumber(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPSequenceNumber {
        if reader.take(UInt8(ascii: "*")) { return .last }
        guard let byte = reader.peek(), ASCII.isDigit(byte) else { throw .syntax("a sequence set") }
        return .number(try reader.nonZeroNumber())
    }

    /// The ranges the set names in a mailbox whose largest number (message count, or highest UID) is `last`, `*`
    /// standing for `last`, each in rising order, in the order given. Empty for an empty mailbox (`last` 0), where
    /// even `1:*` names nothing; nil for `$`, which the caller replaces with its saved result. Numbers past `last`
    /// are kept: the caller intersects with the messages that exist (`UID FETCH 100:*` with 50 the highest UID
    /// names 50).
    public func ranges(last: UInt32) -> [ClosedRange<UInt32>]? {
        guard case .ranges(let ranges) = self else { return nil }
        guard last > 0 else { return [] }
        return ranges.map { $0.bounds(last: last) }
    }

    /// The text form (`1:*`, `2,4:6`, `$`).
    public var text: String {
        switch self {
        case .savedResult: return "$"
        case .ranges(let ranges): return ranges.map(\.text).joined(separator: ",")
        }
    }

    /// The shortest set of `numbers` (`1,3:5` for 1, 3, 4, 5), in rising order: for an ESEARCH `ALL` or a COPYUID.
    /// With `keepingOrder`, in their order, only rising runs joined (`3,1:2` for 3, 1, 2): for an ESORT `ALL`.
    public static func ranges(of numbers: [UInt32], keepingOrder: Bool = false) -> IMAPSequenceSet {
        var ranges: [IMAPSequenceRange] = []
        for number in keepingOrder ? numbers : numbers.sorted() {
            if case .number(let end)? = ranges.last?.last, end &+ 1 == number || end == number {
                ranges[ranges.count - 1].last = .number(number)
            } else {
                ranges.append(IMAPSequenceRange(.number(number), .number(number)))
            }
        }
        return .ranges(ranges)
    }
}

/// One end of a range: a number, or `*`.
public enum IMAPSequenceNumber: Sendable, Equatable {
    case number(UInt32)
    /// `*`: the largest number in use (the last message's).
    case last

    /// The number, with `*` standing for `last`.
    public func value(last: UInt32) -> UInt32 {
        if case .number(let number) = self { return number }
        return last
    }
}

/// `first:last` (or one number, where both are the same). The ends may come in either order (`5:2` is `2:5`).
public struct IMAPSequenceRange: Sendable, Equatable {
    public var first: IMAPSequenceNumber
    public var last: IMAPSequenceNumber

    public init(_ first: IMAPSequenceNumber, _ last: IMAPSequenceNumber) {
        self.first = first
        self.last = last
    }

    /// The range's bounds in rising order, `*` standing for `last`.
    public func bounds(last largest: UInt32) -> ClosedRange<UInt32> {
        let a = first.value(last: largest)
        let b = last.value(last: largest)
        return min(a, b)...max(a, b)
    }

    var text: String {
        func text(_ end: IMAPSequenceNumber) -> String {
            if case .number(let number) = end { return String(number) }
            return "*"
        }
        return first == last ? text(first) : "\(text(first)):\(text(last))"
    }
}
