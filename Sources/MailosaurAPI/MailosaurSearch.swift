import JSON
import MailStore
import Time

/// Mailosaur's `SearchCriteria` (the body of `POST api/messages/search` and `POST api/messages/await`) read purely
/// into the store's one filter (``MailFilter``).
///
/// Each field is a case-insensitive substring, as every door's search reads the store: `sentTo` of an envelope
/// recipient (`RCPT TO`) or of the `To` or `Cc` fields, `sentFrom` of the envelope's sender (`MAIL FROM`) or of the
/// `From` field, `subject` of the subject, `body` of the text or HTML part. `match` is `ALL` (the default: each field
/// given must match) or `ANY` (one is enough), its case ignored.
struct MailosaurCriteria: Sendable, Equatable {
    var sentTo: String?
    var sentFrom: String?
    var subject: String?
    var body: String?
    var matchesAny = false

    /// Whether no field is given (a search refuses that; a wait takes it as any message).
    var isEmpty: Bool { conditions.isEmpty }

    /// The criteria of the JSON `body`; an empty body is no criteria.
    /// - Throws: ``MailosaurRefusal`` (400) naming the field for a body that is no JSON object, a field that is not
    ///   a string (null aside) or a `match` that is neither `ALL` nor `ANY`.
    init(json body: [UInt8]) throws {
        guard !body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }) else { return }
        guard case .object(let members)? = try? JSONValue.parse(body, limits: .requestBody(maximumBytes: body.count))
        else { throw MailosaurRefusal.invalid("criteria", "The search criteria must be a JSON object.") }
        func string(_ name: String) throws -> String? {
            switch members.last(where: { $0.0 == name })?.1 {
            case nil, .null?: return nil
            case .string(let text)?: return text.isEmpty ? nil : text
            default: throw MailosaurRefusal.invalid(name, "Must be a string.")
            }
        }
        sentTo = try string("sentTo")
        sentFrom = try string("sentFrom")
        subject = try string("subject")
        self.body = try string("body")
        switch members.last(where: { $0.0 == "match" })?.1 {
        case nil, .null?: matchesAny = false
        case .string(let text)? where text.uppercased() == "ALL": matchesAny = false
        case .string(let text)? where text.uppercased() == "ANY": matchesAny = true
        default: throw MailosaurRefusal.invalid("match", "Must be ALL or ANY.")
        }
    }

    init(
        sentTo: String? = nil, sentFrom: String? = nil, subject: String? = nil, body: String? = nil, any: Bool = false
    ) {
        (self.sentTo, self.sentFrom, self.subject, self.body, self.matchesAny) = (sentTo, sentFrom, subject, body, any)
    }

    /// The condition of each field given, in the criteria's order.
    private var conditions: [MailFilter] {
        var conditions: [MailFilter] = []
        if let sentTo { conditions.append(.any([.envelopeTo(sentTo), .to(sentTo), .cc(sentTo)])) }
        if let sentFrom { conditions.append(.any([.envelopeFrom(sentFrom), .from(sentFrom)])) }
        if let subject { conditions.append(.subject(subject)) }
        if let body { conditions.append(.body(body)) }
        return conditions
    }

    /// The criteria as the store's filter: every field's condition (`ALL`) or one of them (`ANY`); every message when
    /// none is given.
    var filter: MailFilter {
        let conditions = conditions
        guard !conditions.isEmpty else { return .all([]) }
        return matchesAny ? .any(conditions) : .all(conditions)
    }
}

/// The query of a list, search or wait (`?server=&page=&itemsPerPage=&receivedAfter=&dir=`) read purely.
struct MailosaurQuery: Sendable, Equatable {
    /// The server's id, well formed (``MailosaurServer/isWellFormed(_:)``).
    var server: String
    /// The page, from 0.
    var page = 0
    var itemsPerPage: Int
    /// Unix seconds: only messages received then or later.
    var receivedAfter: Int64?
    /// `dir=Sent`: the messages sent from the server, of which Postern keeps none.
    var sent = false

    /// Reads `item` (a query item's value by name) under `configuration`'s limits; a parameter given empty is
    /// invalid (the SDKs leave out what they do not set).
    /// - Throws: ``MailosaurRefusal`` (400) naming the parameter: no `server`, a number that is not one or out of
    ///   range, a `receivedAfter` that is no RFC 3339 time, a `dir` that is neither `Sent` nor `Received`; 404 for a
    ///   server id of another form (no server has it).
    init(_ item: (String) -> String?, configuration: MailosaurConfiguration) throws {
        guard let server = item("server"), !server.isEmpty else {
            throw MailosaurRefusal.invalid("server", "The server parameter is required.")
        }
        guard MailosaurServer.isWellFormed(server) else { throw MailosaurRefusal.notFound }
        self.server = server
        itemsPerPage = configuration.defaultItemsPerPage
        if let text = item("page") {
            guard let page = Int(text), (0...1_000_000).contains(page) else {
                throw MailosaurRefusal.invalid("page", "Must be a whole number from 0 to 1,000,000.")
            }
            self.page = page
        }
        if let text = item("itemsPerPage") {
            guard let count = Int(text), (1...configuration.maximumItemsPerPage).contains(count) else {
                throw MailosaurRefusal.invalid(
                    "itemsPerPage", "Must be a whole number from 1 to \(configuration.maximumItemsPerPage).")
            }
            itemsPerPage = count
        }
        if let text = item("receivedAfter") {
            guard let seconds = RFC3339.parse(text) else {
                throw MailosaurRefusal.invalid("receivedAfter", "Must be a date and time (ISO 8601).")
            }
            receivedAfter = seconds
        }
        switch item("dir")?.lowercased() {
        case nil, "received": sent = false
        case "sent": sent = true
        default: throw MailosaurRefusal.invalid("dir", "Must be Sent or Received.")
        }
    }

    /// The selection of `server`'s messages that pass `filter` and this query, newest first, this page.
    func selection(of server: MailosaurServer, _ filter: MailFilter) -> MailSelection {
        var conditions = [filter]
        if let receivedAfter { conditions.append(.after(receivedAfter)) }
        if sent { conditions.append(.ids([])) }
        return MailSelection(
            .address(server.address), .all(conditions), start: page * itemsPerPage, limit: itemsPerPage)
    }
}
