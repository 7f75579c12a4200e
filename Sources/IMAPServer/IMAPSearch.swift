import IMAP
import MIME
import MailStore
import Time

/// Runs a search (RFC 9051 §6.4.4) over the selected mailbox: keys side by side intersected, `OR` united, `NOT`
/// complemented. A key with a case in the store's one filter (``MailFilter``: `SUBJECT`, `BODY`, and beside them the
/// flags, sizes and internal dates) is asked of the store, so that IMAP matches the decoded text every other door
/// matches (base64, quoted-printable, RFC 2047, any charset the parser reads); a subtree of such keys is one query.
/// IMAP answers the rest itself: sequence and UID sets, `RECENT`/`NEW`/`OLD`, and what no filter case means, each
/// read from the message's header, its encoded words decoded: `HEADER` fields, the addresses of `FROM`/`TO`/`CC`/`BCC`
/// as read (groups and comment names included), the header half of `TEXT` (whose body half is the store's `BODY`),
/// the sent dates. Keys without text (flags, sizes, dates, sets) are read from the view, which holds them.
///
/// Everything it reads is charged to `meter` first at the messages' stored size: each text key the store matches,
/// per message of the mailbox, in runs of ``storedRun`` messages; each message IMAP reads itself, once per key. A
/// search past the command's or the account's allowance, or whose connection closed, stops between two runs or two
/// messages (``IMAPSearchStop``). IMAP's strings are found by ``IMAPSearchMatcher``, in time linear in the text and
/// the string; the store's as ``MailFilter`` finds them (case-insensitive for ASCII).
struct IMAPSearch {
    let view: IMAPMailboxView
    let saved: [UInt32]
    let meter: IMAPSearchMeter
    /// The ids of the selected address's messages that pass a filter (the store's one search).
    let stored: (MailFilter) async throws -> Set<String>
    /// The message of an index, loaded once; nil when it is gone from the store.
    let message: (Int) async throws -> IMAPMessageRenderer?

    /// How many messages one query of the store matches text in: the meter's step between two queries.
    static let storedRun = 100

    /// The indexes (0-based) of the messages `key` matches, in rising order.
    func run(_ key: IMAPSearchKey) async throws -> [Int] {
        try await evaluate(key).enumerated().compactMap { $0.element ? $0.offset : nil }
    }

    private func evaluate(_ key: IMAPSearchKey) async throws -> [Bool] {
        let entries = view.entries
        let texts = Self.textKeys(key)
        if texts > 0, let filter = Self.filter(key) { return try await passing(filter, textKeys: texts) }
        switch key {
        case .all:
            return Array(repeating: true, count: entries.count)
        case .and(let keys):
            // The keys the store answers go to it together when one of them matches text; the rest one by one.
            let asked = keys.compactMap { key in Self.filter(key).map { (key, $0) } }
            let askedTexts = asked.reduce(0) { $0 + Self.textKeys($1.0) }
            var result = Array(repeating: true, count: entries.count)
            var rest = keys
            if askedTexts > 0 {
                result = try await passing(.all(asked.map(\.1)), textKeys: askedTexts)
                rest = keys.filter { Self.filter($0) == nil }
            }
            for key in rest {
                let next = try await evaluate(key)
                for index in result.indices { result[index] = result[index] && next[index] }
            }
            return result
        case .or(let a, let b):
            let (left, right) = (try await evaluate(a), try await evaluate(b))
            return zip(left, right).map { $0 || $1 }
        case .not(let inner):
            return try await evaluate(inner).map { !$0 }
        case .flag, .recent, .new, .old, .larger, .smaller, .uid, .sequence, .internalDate:
            return Self.inView(key, view, saved: saved)
        case .sentDate(let comparison, let date):
            // The date as the sender wrote it, its zone disregarded (RFC 9051 §6.4.4).
            return try await eachMessage { message in
                let written = IMAPHeaderBlock(message.header).text("Date").flatMap(Self.writtenDay)
                return written.map { Self.compare($0, comparison, date) } ?? false
            }
        case .header(let field, let needle):
            // `SUBJECT x` (x not empty) is the store's; `HEADER f ""` asks whether the field is there at all.
            let wanted = IMAPSearchMatcher(needle.utf8)
            return try await eachMessage { message in
                IMAPHeaderBlock(message.header).values(field).contains { wanted.matches(Self.decoded($0)) }
            }
        case .address(let field, let needle):
            let wanted = IMAPSearchMatcher(needle.utf8)
            return try await eachMessage { message in
                IMAPHeaderBlock(message.header).values(field).contains { wanted.matches(Self.addressText($0)) }
            }
        case .body(let needle):
            return try await passing(.body(needle), textKeys: 1)
        case .text(let needle):
            // The body as the store decoded it, then the header of each message whose body did not have it.
            let inBody = try await passing(.body(needle), textKeys: 1)
            let wanted = IMAPSearchMatcher(needle.utf8)
            let inHeader = try await eachMessage(among: inBody.map { !$0 }) { message in
                IMAPHeaderBlock(message.header).values().contains { wanted.matches(Self.decoded($0)) }
            }
            return zip(inBody, inHeader).map { $0 || $1 }
        }
    }

    /// The key as the store's filter, nil when it (or a key inside it) has no case there: the flags kept as keywords,
    /// sizes, internal dates (UTC days), `SUBJECT` with a string and `BODY`, and `ALL`, `NOT`, `OR` and lists of them.
    static func filter(_ key: IMAPSearchKey) -> MailFilter? {
        switch key {
        case .all: return .all([])
        case .and(let keys):
            let filters = keys.compactMap(filter)
            return filters.count == keys.count ? .all(filters) : nil
        case .or(let a, let b): return filter(a).flatMap { a in filter(b).map { .any([a, $0]) } }
        case .not(let inner): return filter(inner).map { .none([$0]) }
        case .flag(let flag, let set): return flag.keyword.map { set ? .hasKeyword($0) : .notKeyword($0) }
        case .larger(let size): return size < UInt64(Int64.max) ? .minSize(Int64(size) + 1) : .any([])
        case .smaller(let size): return size <= UInt64(Int64.max) ? .maxSize(Int64(size)) : .all([])
        case .internalDate(let comparison, let date):
            let day = date.daysSinceEpoch * 86_400
            switch comparison {
            case .before: return .before(day)
            case .on: return .all([.after(day), .before(day + 86_400)])
            case .since: return .after(day)
            }
        case .header(let field, let needle): return field == "SUBJECT" && !needle.isEmpty ? .subject(needle) : nil
        case .body(let needle): return .body(needle)
        case .text, .address, .sentDate, .recent, .new, .old, .uid, .sequence: return nil
        }
    }

    /// How many keys of `key` match a string.
    static func textKeys(_ key: IMAPSearchKey) -> Int {
        switch key {
        case .and(let keys): keys.reduce(0) { $0 + textKeys($1) }
        case .or(let a, let b): textKeys(a) + textKeys(b)
        case .not(let inner): textKeys(inner)
        case .header, .address, .body, .text: 1
        case .all, .flag, .new, .old, .recent, .internalDate, .sentDate, .larger, .smaller, .uid, .sequence: 0
        }
    }

    /// Which messages of the view pass `filter` in the store, asked ``storedRun`` messages at a time, each message
    /// charged first at its size once per text key of the filter.
    private func passing(_ filter: MailFilter, textKeys: Int) async throws -> [Bool] {
        let entries = view.entries
        var result = Array(repeating: false, count: entries.count)
        for start in stride(from: 0, to: entries.count, by: Self.storedRun) {
            let run = start..<min(start + Self.storedRun, entries.count)
            for index in run { try meter.charge(Int(entries[index].size) * textKeys) }
            let found = try await stored(.all([.ids(run.map { entries[$0].id }), filter]))
            for index in run { result[index] = found.contains(entries[index].id) }
        }
        return result
    }

    /// Whether `key` is answered from the view alone, reading nothing (no text, no header, no sent date): flags,
    /// sizes, internal dates, sequence and UID sets, `RECENT`/`NEW`/`OLD`, and `ALL`, `NOT`, `OR` and lists of them.
    static func readsNothing(_ key: IMAPSearchKey) -> Bool {
        switch key {
        case .and(let keys): keys.allSatisfy(readsNothing)
        case .or(let a, let b): readsNothing(a) && readsNothing(b)
        case .not(let inner): readsNothing(inner)
        case .all, .flag, .recent, .new, .old, .larger, .smaller, .uid, .sequence, .internalDate: true
        case .header, .address, .body, .text, .sentDate: false
        }
    }

    /// Which messages of `view` `key` matches, for a key that reads nothing (``readsNothing(_:)``; any other key
    /// matches none here); `saved` is `$`'s UIDs.
    static func inView(_ key: IMAPSearchKey, _ view: IMAPMailboxView, saved: [UInt32]) -> [Bool] {
        let entries = view.entries
        switch key {
        case .all:
            return Array(repeating: true, count: entries.count)
        case .and(let keys):
            var result = Array(repeating: true, count: entries.count)
            for key in keys {
                let next = inView(key, view, saved: saved)
                for index in result.indices { result[index] = result[index] && next[index] }
            }
            return result
        case .or(let a, let b):
            return zip(inView(a, view, saved: saved), inView(b, view, saved: saved)).map { $0 || $1 }
        case .not(let inner):
            return inView(inner, view, saved: saved).map { !$0 }
        case .flag(let flag, let set):
            guard let keyword = flag.keyword else { return entries.map { _ in !set } }
            return entries.map { $0.keywords.contains(keyword) == set }
        case .recent:
            return entries.map { view.isRecent($0.uid) }
        case .new:
            return entries.map { view.isRecent($0.uid) && !$0.keywords.contains("$seen") }
        case .old:
            return entries.map { !view.isRecent($0.uid) }
        case .larger(let size):
            return entries.map { UInt64($0.size) > size }
        case .smaller(let size):
            return entries.map { UInt64($0.size) < size }
        case .uid(let set):
            return membership(view.indexes(set, uid: true, saved: saved), of: entries.count)
        case .sequence(let set):
            return membership(view.indexes(set, uid: false, saved: saved), of: entries.count)
        case .internalDate(let comparison, let date):
            return entries.map { compare(CivilDate.split($0.receivedAt).days, comparison, date) }
        case .header, .address, .body, .text, .sentDate:
            return Array(repeating: false, count: entries.count)
        }
    }

    private static func membership(_ indexes: [Int], of count: Int) -> [Bool] {
        var result = Array(repeating: false, count: count)
        for index in indexes { result[index] = true }
        return result
    }

    /// `test` of each message (of those `among` marks, when given; false for the others), each charged first.
    private func eachMessage(among: [Bool]? = nil, _ test: (IMAPMessageRenderer) -> Bool) async throws -> [Bool] {
        var result: [Bool] = []
        for index in view.entries.indices {
            guard among?[index] ?? true else {
                result.append(false)
                continue
            }
            try meter.charge(Int(view.entries[index].size))
            result.append(try await message(index).map(test) ?? false)
        }
        return result
    }

    /// A header value as read: its RFC 2047 encoded words decoded, as UTF-8.
    static func decoded(_ value: [UInt8]) -> [UInt8] {
        guard value.contains(UInt8(ascii: "=")) else { return value }
        return Array(EncodedWords.decode(String(decoding: value, as: UTF8.self)).utf8)
    }

    private static func compare(_ day: Int64, _ comparison: IMAPDateComparison, _ date: IMAPDate) -> Bool {
        switch comparison {
        case .before: return day < date.daysSinceEpoch
        case .on: return day == date.daysSinceEpoch
        case .since: return day >= date.daysSinceEpoch
        }
    }

    /// The day (since the epoch) of a `Date:` field's `[day-name ","] DD Mon YYYY`, as written; nil when unreadable.
    static func writtenDay(_ text: String) -> Int64? {
        let words = text.split { $0 == " " || $0 == "," || $0 == "\t" }.map(String.init)
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        for index in words.indices.dropLast(2) {
            guard let day = Int64(words[index]), (1...31).contains(day),
                let month = months.firstIndex(of: words[index + 1].prefix(3).lowercased()),
                let year = Int64(words[index + 2]), year >= 1000
            else { continue }
            return CivilDate.days(year: year, month: Int64(month + 1), day: day)
        }
        return nil
    }

    /// An address field's value as its addresses read (`Name <local@host>, group: a@b;`), as Dovecot matches
    /// `FROM`/`TO`/`CC`/`BCC`, so that comments and white space inside an address do not hide it; the value as
    /// written when it does not parse.
    static func addressText(_ value: [UInt8]) -> [UInt8] {
        guard let list = try? AddressListParser.addressList(String(decoding: value, as: UTF8.self)) else { return value }
        func written(_ address: MailAddress) -> String {
            address.name.map { "\($0) <\(address.email)>" } ?? address.email
        }
        let text = list.map { entry in
            switch entry {
            case .mailbox(let address): written(address)
            case .group(let name, let members): "\(name): " + members.map(written).joined(separator: ", ") + ";"
            }
        }
        return Array(text.joined(separator: ", ").utf8)
    }
}
