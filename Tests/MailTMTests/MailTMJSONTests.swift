import JSON
import MIME
@testable import MailStore
import Testing

@testable import MailTM

@Suite("mail.tm's JSON-LD resources")
struct MailTMJSONTests {
    let record = MailMessageRecord(
        summary: MailSummary(
            id: "m1", address: "a@mail.localhost", folder: .inbox, envelopeFrom: "bounce@example.com",
            from: [MailAddress(name: "App", email: "app@example.com")], subject: "Hi", preview: "hello there",
            size: 321, isRead: false, receivedAt: 1_700_000_000, threadID: "m1", keywords: []),
        to: [MailAddress(email: "a@mail.localhost")], cc: [MailAddress(name: "C", email: "c@example.com")], bcc: [],
        replyTo: [], messageID: "x@example.com", inReplyTo: [], references: [], sentAt: nil, textBody: "hello",
        htmlBody: "<p>hello</p>",
        attachments: [
            MailAttachmentInfo(
                position: 0, filename: "a.txt", contentType: "text/plain", contentID: nil, disposition: "attachment",
                size: 5)
        ])

    @Test("A list item has mail.tm's members, its IRIs relative to the API's root")
    func listItem() throws {
        let item = MailTMJSON.messageItem(record, accountID: "acc")
        #expect(item["@id"]?.stringValue == "/messages/m1")
        #expect(item["@type"]?.stringValue == "Message")
        #expect(item["accountId"]?.stringValue == "/accounts/acc")
        #expect(item["msgid"]?.stringValue == "<x@example.com>")
        #expect(item["from"]?["address"]?.stringValue == "app@example.com")
        #expect(first(item["to"])?["name"]?.stringValue == "")
        #expect(item["intro"]?.stringValue == "hello there")
        #expect(item["hasAttachments"] == .bool(true))
        #expect(item["downloadUrl"]?.stringValue == "/messages/m1/download")
        #expect(item["createdAt"]?.stringValue == "2023-11-14T22:13:20+00:00")
        #expect(item["text"] == nil)
    }

    @Test("The whole message has its bodies, cc as text, html as blocks and attachments with download URLs")
    func detail() throws {
        let message = MailTMJSON.message(record, accountID: "acc")
        #expect(message["intro"] == nil)
        #expect(message["cc"] == .array([.string("c@example.com")]))
        #expect(message["html"] == .array([.string("<p>hello</p>")]))
        #expect(message["text"]?.stringValue == "hello")
        let attachment = try #require(first(message["attachments"]))
        #expect(attachment["id"]?.stringValue == "ATTACH000001")
        #expect(attachment["downloadUrl"]?.stringValue == "/messages/m1/attachment/ATTACH000001")
        #expect(MailTMJSON.attachmentPosition("ATTACH000001") == 0)
        for bad in ["ATTACH000000", "ATTACH1", "attach000001", "ATTACH00000x", "../ATTACH01"] {
            #expect(MailTMJSON.attachmentPosition(bad) == nil)
        }
    }

    @Test("A collection names its context, its IRI, its members and its total")
    func collection() throws {
        let page = try MailTMPage(query: nil, size: 30, maximum: 10)
        let domains = MailTMJSON.collection(
            [MailTMJSON.domain("mail.localhost", since: 0)], type: "Domain", path: "/domains", total: 1, page: page)
        #expect(domains["@context"]?.stringValue == "/contexts/Domain")
        #expect(domains["@type"]?.stringValue == "hydra:Collection")
        #expect(domains["hydra:totalItems"] == .int(1))
        #expect(domains["hydra:view"] == nil)
        let domain = try #require(first(domains["hydra:member"]))
        #expect(domain["id"]?.stringValue == MailTMJSON.domainID("mail.localhost"))
        #expect(domain["@id"]?.stringValue == "/domains/\(MailTMJSON.domainID("mail.localhost"))")
        #expect(MailTMJSON.domainID("mail.localhost").utf8.count == 24)
        #expect(domain["isActive"] == .bool(true))
    }
}

/// The first element of an array value.
private func first(_ value: JSONValue?) -> JSONValue? {
    guard case .array(let elements)? = value else { return nil }
    return elements.first
}
