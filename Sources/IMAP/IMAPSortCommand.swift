/// A `SORT` command's arguments (RFC 5256 §3): the sort criteria in order, the charset and the search criteria that
/// choose the messages to sort.
public struct IMAPSortCommand: Sendable, Equatable {
    /// What a criterion compares (RFC 5256 §3).
    public enum Key: String, Sendable, Equatable {
        case arrival = "ARRIVAL"
        case cc = "CC"
        case date = "DATE"
        case from = "FROM"
        case size = "SIZE"
        case subject = "SUBJECT"
        case to = "TO"
    }

    /// One criterion: its key, and whether `REVERSE` came before it.
    public struct Criterion: Sendable, Equatable {
        public var key: Key
        public var reverse: Bool

        public init(_ key: Key, reverse: Bool = false) {
            self.key = key
            self.reverse = reverse
        }
    }

    public var criteria: [Criterion]
    /// The charset the search strings are in (`US-ASCII` or `UTF-8` are served; the driver answers others).
    public var charset: String
    public var key: IMAPSearchKey

    public init(criteria: [Criterion], charset: String, key: IMAPSearchKey) {
        self.criteria = criteria
        self.charset = charset
        self.key = key
    }
}

extension IMAPSortCommand {
    /// Reads `SP "(" sort-criterion *(SP sort-criterion) ")" SP charset 1*(SP search-key)` after the command name,
    /// a `sort-criterion` being `["REVERSE" SP] sort-key`.
    static func read(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPSortCommand {
        try reader.space()
        try reader.open()
        var criteria: [Criterion] = []
        repeat {
            let reverse = reader.take(word: "REVERSE")
            if reverse { try reader.space() }
            guard let key = Key(rawValue: try reader.keyword("a sort key")) else {
                throw .syntax("ARRIVAL, CC, DATE, FROM, SIZE, SUBJECT or TO")
            }
            criteria.append(Criterion(key, reverse: reverse))
        } while reader.take(ASCII.space)
        try reader.close()
        try reader.space()
        let charset = try reader.astringText()
        try reader.space()
        var keys: [IMAPSearchKey] = []
        repeat { keys.append(try IMAPSearchParser.key(&reader)) } while reader.take(ASCII.space)
        return IMAPSortCommand(criteria: criteria, charset: charset, key: keys.count == 1 ? keys[0] : .and(keys))
    }
}
