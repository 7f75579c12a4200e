import Directory
import Testing

@testable import MailCX

@Suite("mail.cx's inbox query: the cursor, count and limit")
struct MailCXInboxQueryTests {
    @Test("No since, an empty one or 0 is from the start; a cursor this server gave is its state")
    func since() throws {
        for text in [nil, "", "0"] as [String?] {
            #expect(try MailCXInboxQuery(since: text, count: nil, limit: nil).since == nil)
        }
        let cursor = MailCXInboxQuery.cursor(42)
        #expect(try MailCXInboxQuery(since: cursor, count: nil, limit: nil).since == 42)
    }

    @Test("A since that is not a cursor is invalid_since", arguments: ["-1", "abc", "1.5", "12345678901234567890", " 4", "0x10"])
    func badSince(_ text: String) {
        #expect(throws: MailCXError.invalidSince) { try MailCXInboxQuery(since: text, count: nil, limit: nil) }
    }

    @Test("count defaults to 1 and limit to 20; each from 1 to 50")
    func bounds() throws {
        let defaults = try MailCXInboxQuery(since: nil, count: nil, limit: nil)
        #expect(defaults.count == 1 && defaults.limit == 20)
        let most = try MailCXInboxQuery(since: nil, count: "50", limit: "50")
        #expect(most.count == 50 && most.limit == 50)
        for bad in ["0", "51", "-1", "x", ""] {
            #expect(throws: MailCXError.invalidCount) { try MailCXInboxQuery(since: nil, count: bad, limit: nil) }
            #expect(throws: MailCXError.invalidLimit) { try MailCXInboxQuery(since: nil, count: nil, limit: bad) }
        }
    }

    @Test("The directory takes any valid address of its domains, refuses a bad local part there, knows no other domain")
    func directory() async throws {
        var configuration = MailCXConfiguration()
        configuration.domains = ["mailcx.localhost"]
        let directory = MailCXDirectory(configuration: configuration)
        #expect(try await directory.resolve("Any.One@MailCX.localhost") == .local(Recipient(address: "any.one@mailcx.localhost", quota: configuration.quota)))
        #expect(try await directory.resolve("-bad-@mailcx.localhost") == .unknown)
        #expect(try await directory.resolve("someone@mail.localhost") == .foreign)
    }

    @Test("Retention, hold and paths are refused out of range, naming their keys")
    func configuration() {
        var configuration = MailCXConfiguration()
        configuration.holdSeconds = 26
        #expect(throws: (any Error).self) { try configuration.validate() }
        configuration = MailCXConfiguration()
        configuration.basePath = "/mailcx/"
        #expect(throws: (any Error).self) { try configuration.validate() }
        configuration = MailCXConfiguration()
        configuration.domains = ["mail.localhost"]
        #expect(throws: (any Error).self) { try configuration.validate(apartFrom: ["mail.localhost"]) }
        #expect(MailCXConfiguration().purgeInterval == .seconds(60))
    }
}
