import ServerKit
import Testing
import Webhooks

@Suite("WebhookConfiguration: retry delays, their default and their bounds")
struct WebhookConfigurationTests {
    static func read(_ value: String?) throws -> WebhookConfiguration {
        try WebhookConfiguration(config: ConfigurationReader { $0 == "POSTERN_WEBHOOK_RETRY_SECONDS" ? value : nil })
    }

    @Test("unset or empty: the documented five delays; set: the list as given, trimmed")
    func delays() throws {
        #expect(try Self.read(nil).retrySeconds == [30, 120, 600, 3600, 21600])
        #expect(try Self.read(" ").retrySeconds == [30, 120, 600, 3600, 21600])
        #expect(try Self.read(" 1, 2 ,86400").retrySeconds == [1, 2, 86400])
        #expect(try Self.read(Array(repeating: "5", count: 20).joined(separator: ",")).retrySeconds.count == 20)
    }

    @Test("a list that does not parse or passes the bounds is refused, naming the key", arguments: [
        "1,x", "1,,2", "0", "86401", "-5", Array(repeating: "1", count: 21).joined(separator: ","),
    ])
    func refusal(value: String) throws {
        let error = #expect(throws: ConfigurationError.self) { try Self.read(value) }
        #expect(error?.key == "POSTERN_WEBHOOK_RETRY_SECONDS")
    }

    @Test("validate() holds a directly built configuration to the same bounds")
    func directlyBuilt() throws {
        var c = WebhookConfiguration()
        try c.validate()
        c.retrySeconds = []
        #expect(throws: ConfigurationError.self) { try c.validate() }
    }
}
