import IMAP
import MIME
import MailStore
import Time

/// Runs a search (RFC 9051 §6.4.4) over the selected mailbox: each key is evaluated for every message at once, keys
/// side by side intersected, `OR` united, `NOT` complemented. Strings match as case-insensitive substrings of ASCII;
/// dates compare by UTC day. A key that needs the message's bytes (a header, the body, the text, the `Date:` field)
/// asks `message` for them, once per message, each charged to `meter` first at its stored size: a search past the
/// command's or the account's allowance, or whose connection closed, stops between two messages
/// (``IMAPSearchStop``). Strings are found by ``IMAPSearchMatcher``, in time linear in the text and the string.
struct IMAPSearch {
    let view: IMAPMailboxView
    let saved: [UInt32]
    let meter: IMAPSearchMeter
    /// The message of an index, loaded once; nil when it is gone from the store.
    let message: (Int) async throws -> IMAPMessageRenderer?

    /// The indexes (0-based) of the messages `key` matches, in rising order.
    func run(_ key: IMAPSearchKey) async throws -> [Int] {
        try await evaluate(key).enumerated().compactMap { $0.element ? $0.offset : nil }
    }

    private func evaluate(_ key: IMAPSearchKey) async throws -> [Bool] {
        let entries = view.entries
        switch key {
        case .all:
            return Array(repeating: true, count: entries.count)
        case .and(let keys):
            var result = Array(repeating: true, count: entries.count)
            for key in keys {
                let next = try await evaluate(key)
                for index in result.indices { result[index] = result[index] && next[index] }
            }
            return result
        case .or(let a, let b):
            let (left, right) = (try await evaluate(a), try await evaluate(b))
            return zip(left, right).map { $0 || $1 }
        case .not(let inner):
            return try await evaluate(inner).map { !$0 }
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
            return membership(view.indexes(set, uid: true, saved: saved))
        case .sequence(let set):
            return membership(view.indexes(set, uid: false, saved: saved))
        case .internalDate(let comparison, let date):
            return entries.map { Self.compare(CivilDate.split($0.receivedAt).days, comparison, date) }
        case .sentDate(let comparison, let date):
            // The date as the sender wrote it, its zone disregarded (RFC 9051 §6.4.4).
            return try await eachMessage { message in
                let written = IMAPHeaderBlock(message.header).text("Date").flatMap(Self.writtenDay)
                return written.map { Self.compare($0, comparison, date) } ?? false
            }
        case .header(let field, let needle):
            let wanted = IMAPSearchMatcher(needle.utf8)
            return try await eachMessage { message in
                IMAPHeaderBlock(message.header).values(field).contains { wanted.matches($0) }
            }
        case .address(let field, let needle):
            let wanted = IMAPSearchMatcher(needle.utf8)
            return try await eachMessage { message in
                IMAPHeaderBlock(message.header).values(field).contains { wanted.matches(Self.addressText($0)) }
            }
        case .body(let needle):
            let wanted = IMAPSearchMatcher(needle.utf8)
            return try await eachMessage { wanted.matches($0.body) }
        case .text(let needle):
            let wanted = IMAPSearchMatcher(needle.utf8)
            return try await eachMessage { wanted.matches($0.raw) }
        }
    }

    private func membership(_ indexes: [Int]) -> [Bool] {
        var result = Array(repeating: false, count: view.entries.count)
        for index in indexes { result[index] = true }
        return result
    }

    private func eachMessage(_ test: (IMAPMessageRenderer) -> Bool) async throws -> [Bool] {
        var result: [Bool] = []
        for index in view.entries.indices {
            try meter.charge(Int(view.entries[index].size))
            result.append(try await message(index).map(test) ?? false)
        }
        return result
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
