import Testing

@testable import MailTM

@Suite("mail.tm's Mercure subscriptions: topics and event ids")
struct MercureSubscriptionTests {
    let account = "0f6f2b8e-8f3c-4b7e-9a5e-3d2c1b0a9f8e"

    @Test("The account's own topic, relative or absolute, is taken")
    func ownTopic() throws {
        for topic in ["/accounts/\(account)", "https://api.mail.tm/accounts/\(account)", "http://127.0.0.1:1/accounts/\(account)"] {
            #expect(try MercureSubscription(topics: [topic], lastEventID: nil, accountID: account).resumeState == nil)
        }
    }

    @Test("Another account's topic, a selector, a template or none is refused", arguments: [
        ["/accounts/1f6f2b8e-8f3c-4b7e-9a5e-3d2c1b0a9f8e"], ["/accounts/{id}"], ["*"], ["/messages"],
        ["/accounts/0f6f2b8e-8f3c-4b7e-9a5e-3d2c1b0a9f8e", "/accounts/other"], [],
        ["/accounts/0f6f2b8e-8f3c-4b7e-9a5e-3d2c1b0a9f8e/messages"],
    ])
    func refused(_ topics: [String]) {
        let error = #expect(throws: MailTMError.self) {
            try MercureSubscription(topics: topics, lastEventID: nil, accountID: account)
        }
        #expect(error == (topics.isEmpty ? .badRequest("Missing \"topic\" parameter.") : .forbidden))
    }

    @Test("An id this hub wrote resumes from its state; any other id starts from now")
    func resume() throws {
        let id = MercureSubscription.eventID(state: 42, messageID: "m-1")
        let resumed = try MercureSubscription(topics: ["/accounts/\(account)"], lastEventID: id, accountID: account)
        #expect(resumed.resumeState == 42)
        for other in ["earliest", "urn:uuid:1234", "urn:postern:mailtm:x:y", "urn:postern:mailtm:-3:m", ""] {
            let fresh = try MercureSubscription(topics: ["/accounts/\(account)"], lastEventID: other, accountID: account)
            #expect(fresh.resumeState == nil)
        }
    }
}
