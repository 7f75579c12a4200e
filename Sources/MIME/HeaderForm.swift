import Foundation
import Time

/// One of RFC 8621 §4.1.2's parsed forms of a header field value, as `header:{name}:as{Form}` names it.
public enum HeaderForm: String, Sendable, CaseIterable {
    case raw = "Raw"
    case text = "Text"
    case addresses = "Addresses"
    case groupedAddresses = "GroupedAddresses"
    case messageIDs = "MessageIds"
    case date = "Date"
    case urls = "URLs"

    /// The fields RFC 5322 and RFC 2369 define, each with the forms it may be read in beside Raw (§4.1.2: a field
    /// neither defines may be read in every form).
    private static let defined: [String: Set<HeaderForm>] = {
        var table: [String: Set<HeaderForm>] = [:]
        for name in ["subject", "comments", "keywords", "list-id"] { table[name] = [.text] }
        for name in [
            "from", "sender", "reply-to", "to", "cc", "bcc", "resent-from", "resent-sender", "resent-reply-to",
            "resent-to", "resent-cc", "resent-bcc",
        ] { table[name] = [.addresses, .groupedAddresses] }
        for name in ["message-id", "in-reply-to", "references", "resent-message-id"] { table[name] = [.messageIDs] }
        for name in ["date", "resent-date"] { table[name] = [.date] }
        for name in ["list-help", "list-unsubscribe", "list-subscribe", "list-post", "list-owner", "list-archive"] {
            table[name] = [.urls]
        }
        for name in ["return-path", "received"] { table[name] = [] }
        return table
    }()

    /// Whether field `name` (any case) may be read or written in this form (RFC 8621 §4.1.2).
    public func allows(_ name: String) -> Bool {
        self == .raw || Self.defined[name.lowercased()].map { $0.contains(self) } ?? true
    }

    /// A raw value (as ``RawHeaderFields`` gives it) read in this form; the value's parsed form is nil (JSON null)
    /// where RFC 8621 §4.1.2 says so: a Date, MessageIds or URLs value that does not parse.
    public func read(_ raw: String) -> HeaderValue {
        switch self {
        case .raw: return .text(raw)
        case .text: return .text(Self.text(raw))
        case .addresses: return .addresses(Self.groups(raw).flatMap(\.addresses))
        case .groupedAddresses: return .groups(Self.groups(raw))
        case .messageIDs: return Self.messageIDs(raw).map(HeaderValue.strings) ?? .none
        case .date: return Self.date(raw).map(HeaderValue.text) ?? .none
        case .urls: return Self.urls(raw).map(HeaderValue.strings) ?? .none
        }
    }

    /// The value unfolded (each CRLF removed), encoded words decoded, white space trimmed, in Unicode NFC (§4.1.2.2).
    static func text(_ raw: String) -> String {
        EncodedWords.decode(unfolded(raw)).trimmingSpaces().precomposedStringWithCanonicalMapping
    }

    static func unfolded(_ raw: String) -> String {
        raw.replacingOccurrences(of: "\r\n", with: "").replacingOccurrences(of: "\n", with: "")
    }

    /// An address list read strictly (``AddressListParser``), or leniently where that refuses (§4.1.2.3 asks for
    /// whatever can be read); display names with their encoded words decoded. Mailboxes outside a group form groups
    /// without a name, one for each run of them.
    static func groups(_ raw: String) -> [AddressGroup] {
        let value = unfolded(raw)
        let members: [ParsedAddress]
        if let strict = try? AddressListParser.addressList(value) {
            members = strict
        } else {
            members = AddressList.parse(value).map(ParsedAddress.mailbox)
        }
        func decoded(_ address: MailAddress) -> MailAddress {
            MailAddress(name: address.name.map { text($0) }.flatMap { $0.isEmpty ? nil : $0 }, email: address.email)
        }
        var groups: [AddressGroup] = []
        for member in members {
            switch member {
            case .mailbox(let address):
                if let last = groups.last, last.name == nil {
                    groups[groups.count - 1].addresses.append(decoded(address))
                } else {
                    groups.append(AddressGroup(name: nil, addresses: [decoded(address)]))
                }
            case .group(let name, let list):
                groups.append(AddressGroup(name: text(name), addresses: list.map(decoded)))
            }
        }
        return groups
    }

    /// Every `<id>` of the value, comments and white space between them; nil when anything else is there (§4.1.2.4).
    static func messageIDs(_ raw: String) -> [String]? {
        bracketed(AddressList.withoutComments(unfolded(raw)), separators: " \t") { id in
            !id.isEmpty && !id.contains(where: { $0 == " " || $0 == "\t" || $0 == "<" })
        }
    }

    /// Every `<url>` of the value (RFC 2369: comma separated, white space inside a URL ignored); nil when anything
    /// else is there (§4.1.2.6).
    static func urls(_ raw: String) -> [String]? {
        bracketed(AddressList.withoutComments(unfolded(raw)), separators: " \t,") { url in
            !url.isEmpty && url.contains(":")
        }?.map { $0.filter { $0 != " " && $0 != "\t" } }
    }

    private static func bracketed(_ text: String, separators: String, valid: (String) -> Bool) -> [String]? {
        var found: [String] = []
        var rest = Substring(text)
        while true {
            rest = rest.drop { separators.contains($0) }
            guard let first = rest.first else { break }
            guard first == "<", let close = rest.firstIndex(of: ">") else { return nil }
            let inside = String(rest[rest.index(after: rest.startIndex)..<close])
            guard valid(inside) else { return nil }
            found.append(inside)
            rest = rest[rest.index(after: close)...]
        }
        return found.isEmpty ? nil : found
    }

    /// The date as RFC 3339 with the field's own offset kept (`1969-02-13T23:32:00-03:30`), nil when it does not
    /// parse (§4.1.2.5).
    static func date(_ raw: String) -> String? {
        let value = AddressList.withoutComments(unfolded(raw))
        guard let seconds = RFC5322Date.parse(value) else { return nil }
        let words = value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
        var offset = 0
        if let zone = words.last, let sign = zone.first, sign == "+" || sign == "-", zone.count == 5,
            let number = Int(zone.dropFirst())
        {
            offset = (sign == "-" ? -1 : 1) * ((number / 100) * 3600 + (number % 100) * 60)
        }
        let local = RFC3339.format(seconds + Int64(offset))
        guard offset != 0, local.hasSuffix("Z") else { return local }
        let minutes = abs(offset) / 60
        let zone = (offset < 0 ? "-" : "+") + String(format: "%02d:%02d", minutes / 60, minutes % 60)
        return String(local.dropLast()) + zone
    }
}

/// A group of addresses (RFC 8621 §4.1.2.4's EmailAddressGroup): a named group, or a run of mailboxes outside any.
public struct AddressGroup: Sendable, Equatable {
    public var name: String?
    public var addresses: [MailAddress]

    public init(name: String?, addresses: [MailAddress]) {
        self.name = name
        self.addresses = addresses
    }
}

/// A header field's value in one of its forms (``HeaderForm/read(_:)``).
public enum HeaderValue: Sendable, Equatable {
    /// JSON null: a form whose value did not parse, or a field that is absent.
    case none
    case text(String)
    case strings([String])
    case addresses([MailAddress])
    case groups([AddressGroup])
}

/// A `header:{name}[:as{Form}][:all]` property (RFC 8621 §4.1.3), read from its name.
public struct HeaderProperty: Sendable, Equatable {
    /// The field's name as asked, any case.
    public var name: String
    public var form: HeaderForm
    /// Whether every field of that name is asked for (an array), or only the last.
    public var all: Bool
}

extension HeaderProperty {
    /// The property `property` names, or nil when it is no header property, names a form that does not exist, puts
    /// `:all` before the form, or asks a form the field may not be read in (§4.1.2).
    public init?(_ property: String) {
        guard property.hasPrefix("header:") else { return nil }
        var pieces = property.dropFirst("header:".count).split(separator: ":", omittingEmptySubsequences: false)
        guard let first = pieces.first, !first.isEmpty,
            first.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { return nil }
        name = String(first)
        pieces.removeFirst()
        all = pieces.last == "all"
        if all { pieces.removeLast() }
        form = .raw
        if let given = pieces.first {
            guard pieces.count == 1, given.hasPrefix("as"), let named = HeaderForm(rawValue: String(given.dropFirst(2)))
            else { return nil }
            form = named
        }
        guard form.allows(name) else { return nil }
    }

    /// The value of this property among `fields` (raw, in order): the last field of the name, or all of them; an
    /// absent field is null, or an empty list.
    public func value(in fields: [MailHeader]) -> [HeaderValue] {
        let wanted = name.lowercased()
        let matching = fields.filter { $0.name.lowercased() == wanted }.map { form.read($0.value) }
        return all ? matching : [matching.last ?? .none]
    }
}
