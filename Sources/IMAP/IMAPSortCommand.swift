import MailDoor

/// A `SORT` command's arguments (RFC 5256 §3): ESORT's return options (RFC 5267), the sort criteria in order, the
/// charset and the search criteria that choose the messages to sort.
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
        /// SORT=DISPLAY (RFC 5957): the first address's display name, or its address when it has none.
        case displayFrom = "DISPLAYFROM"
        case displayTo = "DISPLAYTO"
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

    /// `RETURN (...)` (ESORT): nil for a plain `SORT`, answered `* SORT`; otherwise `* ESEARCH` with the messages in
    /// sort order (`MIN` the first, `MAX` the last, `ALL` all). An empty list means `ALL`.
    public var returnOptions: [IMAPSearchReturnOption]?
    public var criteria: [Criterion]
    /// The charset the search strings are in (`US-ASCII` or `UTF-8` are served; the driver answers others).
    public var charset: String
    public var key: IMAPSearchKey

    public init(
        returnOptions: [IMAPSearchReturnOption]? = nil, criteria: [Criterion], charset: String, key: IMAPSearchKey
    ) {
        self.returnOptions = returnOptions
        self.criteria = criteria
        self.charset = charset
        self.key = key
    }
}

extension IMAPSortCommand {
    /// Reads `SP ["RETURN" SP "(" options ")" SP] "(" sort-criterion *(SP sort-criterion) ")" SP charset
    /// 1*(SP search-key)` after the command name, a `sort-criterion` being `["REVERSE" SP] sort-key`.
    static func read(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPSortCommand {
        try reader.space()
        let returnOptions = try IMAPSearchParser.returnOptions(&reader)
        try reader.open()
        var criteria: [Criterion] = []
        repeat {
            let reverse = reader.take(word: "REVERSE")
            if reverse { try reader.space() }
            guard let key = Key(rawValue: try reader.keyword("a sort key")) else {
                throw .syntax("ARRIVAL, CC, DATE, FROM, SIZE, SUBJECT, TO, DISPLAYFROM or DISPLAYTO")
            }
            criteria.append(Criterion(key, reverse: reverse))
        } while reader.take(ASCII.space)
        try reader.close()
        try reader.space()
        let charset = try reader.astringText()
        try reader.space()
        let keys = try IMAPSearchParser.keys(&reader)
        return IMAPSortCommand(
            returnOptions: returnOptions, criteria: criteria, charset: charset, key: keys)
    }
}
