/// Why a command was refused before it ran: each answered with a tagged `BAD` (an untagged one when the tag itself
/// is unreadable; `NO` when ``isTemporary``), whose text ``text`` is fixed and never echoes what the client sent.
public enum IMAPCommandError: Error, Sendable, Equatable {
    /// The command's text is longer than ``IMAPLimits/maxLineBytes``.
    case lineTooLong
    /// A literal (or the command's literals together) is larger than ``IMAPLimits/maxLiteralBytes``.
    case literalTooLarge
    /// A non-synchronizing literal is larger than ``IMAPLimits/maxNonSynchronizingLiteralBytes`` (`LITERAL-`).
    case nonSynchronizingLiteralTooLarge
    /// Parentheses nest deeper than ``IMAPLimits/maxNestingDepth``.
    case nestingTooDeep
    /// A sequence set holds more than ``IMAPLimits/maxSequenceSetRanges`` ranges.
    case sequenceSetTooLarge
    /// The line does not begin with a valid tag.
    case invalidTag
    /// The command name is not one this server knows.
    case unknownCommand
    /// The command is known but its arguments do not follow the grammar; the payload names what was expected.
    case syntax(String)
    /// A string is not valid UTF-8.
    case invalidUTF8
    /// The command is not allowed in the session's present state (RFC 9051 §3).
    case wrongState
    /// A bare line where a command was expected: NUL bytes, or nothing at all.
    case emptyCommand
    /// The literals of every session together are at the process's ``BufferBudget``: answered `NO [LIMIT]`, not
    /// `BAD`, since the same command may succeed later.
    case busy

    /// The fixed text of the `BAD` response.
    public var text: String {
        switch self {
        case .lineTooLong: return "Command line too long"
        case .literalTooLarge: return "Literal too large"
        case .nonSynchronizingLiteralTooLarge: return "Non-synchronizing literal too large"
        case .nestingTooDeep: return "Parentheses nested too deeply"
        case .sequenceSetTooLarge: return "Sequence set too large"
        case .invalidTag: return "Missing or invalid tag"
        case .unknownCommand: return "Unknown command"
        case .syntax(let expected): return "Syntax error: expected \(expected)"
        case .invalidUTF8: return "String is not valid UTF-8"
        case .wrongState: return "Command not allowed in this state"
        case .emptyCommand: return "Empty command line"
        case .busy: return "Server busy receiving other messages, try again later"
        }
    }

    /// Whether the command may succeed as it is when sent again (answered `NO`).
    public var isTemporary: Bool { self == .busy }

    /// The response code that goes with it (RFC 5530), if any.
    public var code: IMAPResponseCode? {
        switch self {
        case .literalTooLarge, .nonSynchronizingLiteralTooLarge, .lineTooLong: return .tooBig
        case .busy: return .limit
        default: return nil
        }
    }
}
