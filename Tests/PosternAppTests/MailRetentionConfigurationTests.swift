import ConfigurationReading
import MailStore
import Testing

@testable import PosternApp

@Suite("Retention's keys: POSTERN_MAIL_MAX_MESSAGES and POSTERN_MAIL_MAX_AGE")
struct MailRetentionConfigurationTests {
    static func read(_ values: [String: String]) throws -> MailRetentionConfiguration {
        try MailRetentionConfiguration(config: ConfigurationReader { values[$0] })
    }

    @Test("unset or off keeps everything; a count and durations in s, m, h and d are read; the test profile keeps 500")
    func values() throws {
        #expect(try Self.read([:]).retention.isUnlimited)
        #expect(try Self.read(["POSTERN_MAIL_MAX_MESSAGES": "off", "POSTERN_MAIL_MAX_AGE": "0"]).retention.isUnlimited)
        #expect(try Self.read(["POSTERN_MAIL_MAX_MESSAGES": "1000"]).retention == MailRetention(maxMessages: 1000))
        for (text, seconds) in [("3600", 3600), ("90s", 90), ("90m", 5400), ("12h", 43200), ("7D", 604_800)] {
            #expect(try Self.read(["POSTERN_MAIL_MAX_AGE": text]).maxAge == Int64(seconds), "\(text)")
        }
        #expect(ConfigurationProfile.test.defaults["POSTERN_MAIL_MAX_MESSAGES"] == "500")
        #expect(ConfigurationProfile.test.defaults["POSTERN_MAIL_MAX_AGE"] == nil)
    }

    @Test("a value that is no count or duration names its key")
    func refused() {
        for (key, value) in [
            ("POSTERN_MAIL_MAX_MESSAGES", "-5"), ("POSTERN_MAIL_MAX_MESSAGES", "many"), ("POSTERN_MAIL_MAX_AGE", "7w"),
            ("POSTERN_MAIL_MAX_AGE", "h"), ("POSTERN_MAIL_MAX_AGE", "-1d"), ("POSTERN_MAIL_MAX_AGE", "999999999d"),
        ] {
            #expect(throws: ConfigurationError.self, "\(key)=\(value)") { try Self.read([key: value]) }
            do {
                _ = try Self.read([key: value])
            } catch let error as ConfigurationError {
                #expect(error.key == key)
            } catch {
                Issue.record("\(error)")
            }
        }
    }
}
