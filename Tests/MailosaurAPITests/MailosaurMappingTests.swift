import JSON
import MIME
import MailExtraction
import Testing

@testable import MailStore
@testable import MailosaurAPI

/// The pure parts of Mailosaur's API: the server ids, the search criteria and the query read into the store's filter
/// and selection, and the JSON shapes its SDKs' models read.
@Suite("Mailosaur API: ids, criteria, queries and JSON")
struct MailosaurMappingTests {
    // MARK: server ids

    /// Known answers, computed outside Postern (Python's hashlib: the first 5 bytes of SHA-256 as base32hex).
    @Test(
        "a server id is the first 40 bits of the address's SHA-256 in lower-case base32hex",
        arguments: [
            ("catch-all@postern.invalid", "e07knff9"), ("ann@example.org", "8e64ounu"),
        ])
    func serverID(_ address: String, _ id: String) {
        #expect(MailosaurServer.id(of: address) == id)
        #expect(MailosaurServer(address: address).id == id)
        #expect(MailosaurServer.isWellFormed(id))
    }

    @Test("the id is the normalised address's: a domain's case does not make a second server")
    func normalised() {
        #expect(MailosaurServer.id(of: "ann@EXAMPLE.org") == "8e64ounu")
        #expect(MailosaurServer(address: "ann@EXAMPLE.org").address == "ann@example.org")
    }

    @Test(
        "an id of any other form is refused before any lookup",
        arguments: ["", "e07knff", "e07knff9a", "E07KNFF9", "e07knffw", "e07kn-f9", "not_found"])
    func malformedID(_ text: String) {
        #expect(!MailosaurServer.isWellFormed(text))
    }

    // MARK: criteria

    static func criteria(_ json: String) throws -> MailosaurCriteria {
        try MailosaurCriteria(json: Array(json.utf8))
    }

    @Test("ALL (the default) ANDs each field given; the SDK's nulls are no field")
    func matchAll() throws {
        let read = try Self.criteria(
            #"{"sentFrom":null,"sentTo":"ann@example.org","subject":"Code","body":null,"match":"ALL"}"#)
        #expect(
            read.filter
                == .all([
                    .any([.envelopeTo("ann@example.org"), .to("ann@example.org"), .cc("ann@example.org")]),
                    .subject("Code"),
                ]))
        #expect(try Self.criteria(#"{"subject":"Code"}"#).filter == .all([.subject("Code")]))
    }

    @Test("ANY ORs them, its case ignored; sentFrom reads the envelope's sender and From, body both parts")
    func matchAny() throws {
        let read = try Self.criteria(#"{"sentFrom":"app@example.com","body":"this is a link","match":"any"}"#)
        #expect(
            read.filter
                == .any([.any([.envelopeFrom("app@example.com"), .from("app@example.com")]), .body("this is a link")]))
    }

    @Test("no field, an empty string and an empty body are no criteria (every message)")
    func empty() throws {
        for json in ["", "  ", "{}", #"{"sentTo":"","match":"ALL"}"#, #"{"sentTo":null,"subject":null}"#] {
            let read = try Self.criteria(json)
            #expect(read.isEmpty, "\(json)")
            #expect(read.filter == .all([]))
        }
    }

    @Test(
        "a body that is no object, a field that is no string and another match are 400 naming the field",
        arguments: [
            ("[]", "criteria"), ("not json", "criteria"), (#"{"sentTo":5}"#, "sentTo"),
            (#"{"subject":["a"]}"#, "subject"), (#"{"subject":"a","match":"SOME"}"#, "match"),
            (#"{"subject":"a","match":""}"#, "match"), (#"{"subject":"a","match":1}"#, "match"),
        ])
    func refusedCriteria(_ json: String, _ field: String) throws {
        let error = #expect(throws: MailosaurRefusal.self) { try Self.criteria(json) }
        #expect(error?.status.code == 400)
        #expect(error?.errors.map(\.field) == [field])
    }

    // MARK: queries

    static func query(_ items: [String: String], _ configuration: MailosaurConfiguration = MailosaurConfiguration())
        throws -> MailosaurQuery
    {
        try MailosaurQuery({ items[$0] }, configuration: configuration)
    }

    @Test("the SDK's query: its page and itemsPerPage make the selection's page, receivedAfter with its offset")
    func query() throws {
        let read = try Self.query([
            "server": "e07knff9", "page": "2", "itemsPerPage": "10", "receivedAfter": "2026-11-29T06:40:02+01:00",
        ])
        #expect(read.receivedAfter == 1_795_930_802)
        let selection = read.selection(of: MailosaurServer(address: "catch-all@postern.invalid"), .subject("x"))
        #expect(selection.scope == .address("catch-all@postern.invalid"))
        #expect(selection.filter == .all([.subject("x"), .after(1_795_930_802)]))
        #expect((selection.start, selection.limit) == (20, 10))
    }

    @Test("without page or itemsPerPage: the first 50; dir=Sent selects nothing (Postern keeps no sent mail)")
    func defaults() throws {
        let read = try Self.query(["server": "e07knff9"])
        let selection = read.selection(of: MailosaurServer(address: "a@b.c"), .all([]))
        #expect((selection.start, selection.limit) == (0, 50))
        #expect(selection.filter == .all([.all([])]))
        let sent = try Self.query(["server": "e07knff9", "dir": "Sent"]).selection(
            of: MailosaurServer(address: "a@b.c"), .all([]))
        #expect(sent.filter == .all([.all([]), .ids([])]))
        #expect(try Self.query(["server": "e07knff9", "dir": "received"]).sent == false)
    }

    @Test(
        "a missing server, a bad or empty number, time or direction is 400 naming the parameter",
        arguments: [
            ([:], "server"), (["server": ""], "server"), (["server": "e07knff9", "page": "-1"], "page"),
            (["server": "e07knff9", "page": "x"], "page"),
            (["server": "e07knff9", "itemsPerPage": "0"], "itemsPerPage"),
            (["server": "e07knff9", "itemsPerPage": "1001"], "itemsPerPage"),
            (["server": "e07knff9", "receivedAfter": "yesterday"], "receivedAfter"),
            (["server": "e07knff9", "dir": "Both"], "dir"), (["server": "e07knff9", "page": ""], "page"),
            (["server": "e07knff9", "itemsPerPage": ""], "itemsPerPage"), (["server": "e07knff9", "dir": ""], "dir"),
            (["server": "e07knff9", "receivedAfter": ""], "receivedAfter"),
        ])
    func refusedQuery(_ items: [String: String], _ field: String) throws {
        let error = #expect(throws: MailosaurRefusal.self) { try Self.query(items) }
        #expect(error?.status.code == 400)
        #expect(error?.errors.map(\.field) == [field])
    }

    @Test("a server id of another form is 404: no server has it")
    func unknownServerForm() throws {
        let error = #expect(throws: MailosaurRefusal.self) { try Self.query(["server": "not_found"]) }
        #expect(error == .notFound)
    }

    @Test("the await's timeout: the default without one, capped at the maximum, 400 for no number or an empty one")
    func timeout() throws {
        let configuration = MailosaurConfiguration()
        #expect(try MailosaurAPI.timeout(nil, configuration) == 30_000)
        #expect(try MailosaurAPI.timeout("250", configuration) == 250)
        #expect(try MailosaurAPI.timeout("0", configuration) == 0)
        #expect(try MailosaurAPI.timeout("99999999", configuration) == 120_000)
        #expect(throws: MailosaurRefusal.self) { try MailosaurAPI.timeout("-5", configuration) }
        #expect(throws: MailosaurRefusal.self) { try MailosaurAPI.timeout("soon", configuration) }
        #expect(throws: MailosaurRefusal.self) { try MailosaurAPI.timeout("", configuration) }
    }

    // MARK: JSON

    static let record = MailMessageRecord(
        summary: MailSummary(
            id: "m1", address: "catch-all@postern.invalid", folder: .inbox, envelopeFrom: "bounce@app.example",
            from: [MailAddress(name: "App", email: "app@app.example")], subject: "Your code", preview: "Use 482913",
            size: 321, isRead: false, receivedAt: 1_700_000_000, threadID: "m1", keywords: [],
            envelopeTo: ["ann@example.org"]),
        to: [MailAddress(email: "ann@example.org")], cc: [MailAddress(name: "C", email: "c@example.com")], bcc: [],
        replyTo: [], messageID: "x@app.example", inReplyTo: [], references: [], sentAt: nil,
        textBody: "Use 482913.\nConfirm: https://app.example/v?t=1&u=2\n",
        htmlBody: #"<p>Use <b>482913</b>. <a href="https://app.example/v?t=1&amp;u=2">Confirm</a> "#
            + #"<a href="https://app.example/in">x</a></p>"#,
        attachments: [
            MailAttachmentInfo(
                position: 0, filename: "a.txt", contentType: "text/plain", contentID: nil, disposition: "attachment",
                size: 5)
        ])

    static let extraction = MessageExtraction(
        codes: [ExtractedCode(value: "482913", sources: [.text], score: 90, reasons: [])],
        links: [
            ExtractedLink(url: "https://app.example/v?t=1&u=2", text: "Confirm", kind: .verify),
            ExtractedLink(url: "https://app.example/in", text: "", kind: .other),
        ])

    @Test("a summary is the SDK's MessageSummary: addresses with names, the received time, a summary, a count")
    func summary() {
        let json = MailosaurJSON.summary(Self.record, server: "e07knff9")
        #expect(
            json.description
                == #"{"id":"m1","type":"Email","server":"e07knff9","from":[{"name":"App","email":"app@app.example"}],"#
                + #""to":[{"name":"","email":"ann@example.org"}],"cc":[{"name":"C","email":"c@example.com"}],"bcc":[],"#
                + #""received":"2023-11-14T22:13:20Z","subject":"Your code","summary":"Use 482913","attachments":1}"#)
    }

    @Test("a message carries the stored codes in each part it has, and each part's links (text's text is the URL)")
    func message() throws {
        let json = MailosaurJSON.message(
            Self.record, server: "e07knff9", extraction: Self.extraction,
            headers: [MailHeader(name: "Subject", value: "Your code")],
            files: "http://p.test/mailosaur/api/files/attachments/")
        #expect(
            json["html"]?.description
                == #"{"links":[{"href":"https://app.example/v?t=1&u=2","text":"Confirm"},"#
                + #"{"href":"https://app.example/in","text":null}],"codes":[{"value":"482913"}],"images":[],"#
                + #""body":"<p>Use <b>482913</b>. <a href=\"https://app.example/v?t=1&amp;u=2\">Confirm</a> "#
                + #"<a href=\"https://app.example/in\">x</a></p>"}"#)
        #expect(
            json["text"]?.description
                == #"{"links":[{"href":"https://app.example/v?t=1&u=2","text":"https://app.example/v?t=1&u=2"}],"#
                + #""codes":[{"value":"482913"}],"body":"Use 482913.\nConfirm: https://app.example/v?t=1&u=2\n"}"#)
        #expect(
            json["attachments"]?.description
                == #"[{"id":"m1-0","contentType":"text/plain","fileName":"a.txt","contentId":null,"length":5,"#
                + #""url":"http://p.test/mailosaur/api/files/attachments/m1-0"}]"#)
        #expect(
            json["metadata"]?.description
                == #"{"headers":[{"field":"Subject","value":"Your code"}],"ehlo":null,"mailFrom":"bounce@app.example","#
                + #""rcptTo":[{"name":"","email":"ann@example.org"}]}"#)
        #expect(json["server"]?.stringValue == "e07knff9")
        #expect(json["summary"] == nil)
    }

    @Test("a part the message lacks has no code, no link and a null body; no extraction stored: none anywhere")
    func missingParts() {
        var record = Self.record
        record.htmlBody = nil
        let json = MailosaurJSON.message(record, server: "e07knff9", extraction: nil, headers: [], files: "/")
        #expect(json["html"]?.description == #"{"links":[],"codes":[],"images":[],"body":null}"#)
        #expect(json["text"]?["codes"]?.description == "[]")
        #expect(json["text"]?["links"]?.description == "[]")
    }

    @Test("an attachment's id names its message and position, read back whole or refused")
    func attachmentID() {
        let id = MailosaurAttachmentID(message: "a-b-c", position: 12)
        #expect(id.text == "a-b-c-12")
        #expect(MailosaurAttachmentID("a-b-c-12") == id)
        for text in ["", "abc", "-1", "m1-", "m1-x", "m1-12345", "m1-+1"] {
            #expect(MailosaurAttachmentID(text) == nil, "\(text)")
        }
    }

    @Test("an error is Mailosaur's: 400 with each field and its description, the form its SDK reads")
    func refusal() {
        let refusal = MailosaurRefusal.invalid("server", "The server parameter is required.")
        #expect(
            refusal.json.description
                == #"{"type":"invalid_request","errors":[{"field":"server","detail":[{"description":"#
                + #""The server parameter is required."}]}]}"#)
        #expect(refusal.response.status.code == 400)
        #expect(MailosaurRefusal.unauthorized.response.headers["WWW-Authenticate"] == #"Basic realm="Mailosaur""#)
        #expect(MailosaurRefusal.notFound.response.status.code == 404)
    }
}
