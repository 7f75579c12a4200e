/// A `THREAD` command's arguments (RFC 5256 §3): the algorithm, the charset and the search criteria that choose the
/// messages to thread.
public struct IMAPThreadCommand: Sendable, Equatable {
    /// The threading algorithms served.
    public enum Algorithm: String, Sendable, Equatable {
        /// Threads by base subject, each a parent and its siblings in sent-date order (RFC 5256 §2.2).
        case orderedSubject = "ORDEREDSUBJECT"
    }

    public var algorithm: Algorithm
    /// The charset the search strings are in (`US-ASCII` or `UTF-8` are served; the driver answers others).
    public var charset: String
    public var key: IMAPSearchKey

    public init(algorithm: Algorithm, charset: String, key: IMAPSearchKey) {
        self.algorithm = algorithm
        self.charset = charset
        self.key = key
    }

    /// Reads `SP algorithm SP charset 1*(SP search-key)` after the command name.
    static func read(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPThreadCommand {
        try reader.space()
        guard let algorithm = Algorithm(rawValue: try reader.keyword("a threading algorithm")) else {
            throw .syntax("ORDEREDSUBJECT")
        }
        try reader.space()
        let charset = try reader.astringText()
        try reader.space()
        return IMAPThreadCommand(algorithm: algorithm, charset: charset, key: try IMAPSearchParser.keys(&reader))
    }
}

/// One message of a `THREAD` answer and the messages that reply to it.
public struct IMAPThreadNode: Sendable, Equatable {
    /// Its sequence number or UID.
    public var number: UInt32
    public var children: [IMAPThreadNode]

    public init(_ number: UInt32, children: [IMAPThreadNode] = []) {
        self.number = number
        self.children = children
    }
}
