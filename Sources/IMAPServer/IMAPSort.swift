import IMAP
import MIME
import MailStore

/// Orders messages for `SORT` (RFC 5256 §3) and threads them for `THREAD=ORDEREDSUBJECT` (§2.2): by each criterion in turn, `REVERSE` flipping only its own, ties left in
/// sequence-number order. Keys come from the message as IMAP shows it: the arrival time and size of the store's
/// entry, the `Date:` field in UTC (the arrival time when it has none or it does not parse), the first address's
/// mailbox (a group's name for a group, as in ENVELOPE), and the base subject (§2.1), compared without ASCII case.
struct IMAPSort {
    /// One message's keys, read once.
    struct Keys {
        var arrival: Int64
        var size: Int64
        var date: Int64
        var subject: String
        var from: String
        var to: String
        var cc: String
        var displayFrom = ""
        var displayTo = ""
    }

    /// The keys of `entry`, its bytes given as `raw` (nil when the store no longer has them).
    static func keys(_ entry: MailUIDEntry, raw: [UInt8]?) -> Keys {
        var keys = Keys(
            arrival: entry.receivedAt, size: entry.size, date: entry.receivedAt, subject: "", from: "", to: "", cc: "")
        guard let raw, let parsed = try? MIMEParser.parse(raw) else { return keys }
        keys.date = parsed.date ?? entry.receivedAt
        keys.subject = baseSubject(parsed.subject ?? "").uppercased()
        let header = IMAPHeaderBlock(raw[...])
        keys.from = firstMailbox(header.text("From"))
        keys.to = firstMailbox(header.text("To"))
        keys.cc = firstMailbox(header.text("Cc"))
        keys.displayFrom = display(header.text("From"))
        keys.displayTo = display(header.text("To"))
        return keys
    }

    /// The indexes (positions in `keys`) in the criteria's order.
    static func order(_ keys: [Keys], by criteria: [IMAPSortCommand.Criterion]) -> [Int] {
        keys.indices.sorted { left, right in
            for criterion in criteria {
                let order = compare(keys[left], keys[right], criterion.key)
                if order != 0 { return criterion.reverse ? order > 0 : order < 0 }
            }
            return left < right
        }
    }

    /// RFC 5256 §2.2's ORDEREDSUBJECT threads of the positions in `keys`: the messages sorted by base subject, then
    /// sent date; one thread per base subject, its first message the parent of the others (siblings in that order);
    /// the threads in the order of their first message's sent date (ties in sequence order). `number` names a
    /// position's message in the answer.
    static func orderedSubjectThreads(_ keys: [Keys], number: (Int) -> UInt32) -> [IMAPThreadNode] {
        let sorted = order(keys, by: [.init(.subject), .init(.date)])
        var threads: [[Int]] = []
        for position in sorted {
            if let last = threads.last?.first, keys[last].subject == keys[position].subject {
                threads[threads.count - 1].append(position)
            } else {
                threads.append([position])
            }
        }
        threads.sort { left, right in
            let (a, b) = (keys[left[0]].date, keys[right[0]].date)
            return a != b ? a < b : left[0] < right[0]
        }
        return threads.map { thread in
            IMAPThreadNode(number(thread[0]), children: thread.dropFirst().map { IMAPThreadNode(number($0)) })
        }
    }

    private static func compare(_ a: Keys, _ b: Keys, _ key: IMAPSortCommand.Key) -> Int {
        func sign(_ x: Int64, _ y: Int64) -> Int { x < y ? -1 : (x > y ? 1 : 0) }
        func sign(_ x: String, _ y: String) -> Int {
            x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : (y.utf8.lexicographicallyPrecedes(x.utf8) ? 1 : 0)
        }
        switch key {
        case .arrival: return sign(a.arrival, b.arrival)
        case .size: return sign(a.size, b.size)
        case .date: return sign(a.date, b.date)
        case .subject: return sign(a.subject, b.subject)
        case .from: return sign(a.from, b.from)
        case .to: return sign(a.to, b.to)
        case .cc: return sign(a.cc, b.cc)
        case .displayFrom: return sign(a.displayFrom, b.displayFrom)
        case .displayTo: return sign(a.displayTo, b.displayTo)
        }
    }

    /// The mailbox (local part) of the field's first address, or the group's name when it starts with a group; ""
    /// when there is none or the field does not parse. Upper-cased for a comparison without ASCII case.
    static func firstMailbox(_ value: String?) -> String {
        guard let value, let first = (try? AddressListParser.addressList(value))?.first else { return "" }
        switch first {
        case .group(let name, _): return name.uppercased()
        case .mailbox(let address):
            let local = address.email.lastIndex(of: "@").map { String(address.email[..<$0]) } ?? address.email
            return local.uppercased()
        }
    }

    /// RFC 5957's display form of the field's first address: its display name (encoded words decoded), else its
    /// address; a group's name; the field as written when it does not parse (`From: d`). Upper-cased.
    static func display(_ value: String?) -> String {
        guard let value else { return "" }
        guard let first = (try? AddressListParser.addressList(value))?.first else {
            return value.trimmingCharacters(in: .whitespaces).uppercased()
        }
        switch first {
        case .group(let name, _): return name.uppercased()
        case .mailbox(let address): return (address.name ?? address.email).uppercased()
        }
    }

    /// RFC 5256 §2.1's base subject of a decoded subject: white space runs made one space; trailing `(fwd)` and
    /// white space removed; leading `Re:`, `Fw:`, `Fwd:` (each with `[blob]`s before and one after) and `[blob]`s
    /// (when something is left after them) removed, repeatedly; a `[fwd: ...]` wrapper taken off and all of it again.
    static func baseSubject(_ subject: String) -> String {
        var text = Array(
            subject.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }).joined(separator: " ")
                .utf8)
        while true {
            // (2) trailers
            var trimmed = true
            while trimmed {
                trimmed = false
                while text.last == 0x20 { text.removeLast(); trimmed = true }
                if text.count >= 5, Array(text.suffix(5).map(IMAPSearchMatcher.fold)) == Array("(fwd)".utf8) {
                    text.removeLast(5)
                    trimmed = true
                }
            }
            // (3)-(5) leaders and blobs
            var changed = true
            while changed {
                changed = false
                if let rest = leader(text) {
                    text = Array(rest)
                    changed = true
                }
                if let rest = blob(text[...]), rest.contains(where: { $0 != 0x20 }) {
                    text = Array(rest)
                    changed = true
                }
            }
            // (6) [fwd: ...]
            if text.count >= 6, Array(text.prefix(5).map(IMAPSearchMatcher.fold)) == Array("[fwd:".utf8), text.last == UInt8(ascii: "]") {
                text = Array(text[5..<(text.count - 1)])
                continue
            }
            return String(decoding: text, as: UTF8.self)
        }
    }

    /// `text` after a leading white space, or `*subj-blob subj-refwd`; nil when neither leads.
    private static func leader(_ text: [UInt8]) -> ArraySlice<UInt8>? {
        if text.first == 0x20 { return text.dropFirst() }
        var rest = text[...]
        while let after = blob(rest) { rest = after }
        // subj-refwd: ("re" / ("fw" ["d"])) *WSP [subj-blob] ":"
        let word = rest.prefix(3).map(IMAPSearchMatcher.fold)
        if word.starts(with: Array("re".utf8)) {
            rest = rest.dropFirst(2)
        } else if word.starts(with: Array("fwd".utf8)) {
            rest = rest.dropFirst(3)
        } else if word.starts(with: Array("fw".utf8)) {
            rest = rest.dropFirst(2)
        } else {
            return nil
        }
        while rest.first == 0x20 { rest = rest.dropFirst() }
        if let after = blob(rest) { rest = after }
        guard rest.first == UInt8(ascii: ":") else { return nil }
        return rest.dropFirst()
    }

    /// `text` after a leading `"[" *BLOBCHAR "]" *WSP`; nil when it does not start with one.
    private static func blob(_ text: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard text.first == UInt8(ascii: "[") else { return nil }
        var rest = text.dropFirst()
        while let byte = rest.first, byte != UInt8(ascii: "]") {
            guard byte != UInt8(ascii: "[") else { return nil }
            rest = rest.dropFirst()
        }
        guard rest.first == UInt8(ascii: "]") else { return nil }
        rest = rest.dropFirst()
        while rest.first == 0x20 { rest = rest.dropFirst() }
        return rest
    }
}
