import JSON
import Testing

@testable import MailTM

@Suite("mail.tm's pages: the page asked for and its hydra:view")
struct MailTMPageTests {
    @Test("No page is page 1; a whole number from 1 to the bound is that page")
    func accepted() throws {
        #expect(try MailTMPage(query: nil, size: 30, maximum: 1_000_000).number == 1)
        #expect(try MailTMPage(query: "2", size: 30, maximum: 1_000_000).offset == 30)
        #expect(try MailTMPage(query: "1000000", size: 30, maximum: 1_000_000).number == 1_000_000)
    }

    @Test("Page 0, 10^9, a negative, a fraction, text and an empty value are each a 400", arguments: [
        "0", "1000000000", "1000001", "-1", "1.5", "abc", "", "99999999999999999999", " 1",
    ])
    func refused(_ query: String) {
        #expect(throws: MailTMError.self) { try MailTMPage(query: query, size: 30, maximum: 1_000_000) }
        let status = (try? MailTMPage(query: query, size: 30, maximum: 1_000_000)).map { _ in 200 }
        #expect(status == nil)
    }

    @Test("The refusal of page 0 is a Hydra 400")
    func refusalShape() throws {
        let error = #expect(throws: MailTMError.self) { try MailTMPage(query: "0", size: 30, maximum: 10) }
        #expect(error?.status.code == 400)
        let body = try JSONValue.parse(error?.response.body ?? [], limits: .init(maximumBytes: 4096))
        #expect(body["@type"]?.stringValue == "hydra:Error")
        #expect(body["hydra:description"]?.stringValue == "Page should not be less than 1")
    }

    @Test("One page has no view; more have first, last and the neighbours that exist")
    func views() throws {
        let first = try MailTMPage(query: "1", size: 30, maximum: 100)
        #expect(first.view(path: "/messages", total: 0) == nil)
        #expect(first.view(path: "/messages", total: 30) == nil)
        let view = try #require(first.view(path: "/messages", total: 31))
        #expect(view["hydra:first"]?.stringValue == "/messages?page=1")
        #expect(view["hydra:last"]?.stringValue == "/messages?page=2")
        #expect(view["hydra:next"]?.stringValue == "/messages?page=2")
        #expect(view["hydra:previous"] == nil)
        let middle = try #require(try MailTMPage(query: "2", size: 30, maximum: 100).view(path: "/messages", total: 61))
        #expect(middle["@id"]?.stringValue == "/messages?page=2")
        #expect(middle["hydra:previous"]?.stringValue == "/messages?page=1")
        #expect(middle["hydra:next"]?.stringValue == "/messages?page=3")
        let past = try #require(try MailTMPage(query: "9", size: 30, maximum: 100).view(path: "/messages", total: 61))
        #expect(past["hydra:next"] == nil)
        #expect(past["hydra:last"]?.stringValue == "/messages?page=3")
    }
}
