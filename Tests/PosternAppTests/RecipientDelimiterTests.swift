import AgentAuth
import MailboxAccounts
import Testing

@testable import PosternApp

/// `POSTERN_RECIPIENT_DELIMITER` (issue 49, item 8): a delimiter that may appear in a username would let someone
/// register `alice-github` and take the tagged mail `alice` expects, so the configuration refuses every character the
/// served local parts may hold (the agent usernames' and Mail.td addresses' `a-z 0-9 . _ -`), naming the key.
@Suite("Recipient delimiter")
struct RecipientDelimiterTests {
    @Test("a delimiter legal in usernames is refused, naming the key", arguments: ["-", ".", "_", "7", "+-", "0"])
    func legalInUsernames(_ delimiter: String) throws {
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.parse { ["JWT_ISSUER": "x", "POSTERN_RECIPIENT_DELIMITER": delimiter][$0] }
        }
        #expect(error?.key == "POSTERN_RECIPIENT_DELIMITER")
    }

    @Test("every delimiter the configuration takes is refused by the agent and Mail.td username rules")
    func acceptedNeverInUsernames() throws {
        var accepted: [Character] = []
        for scalar in (0x21...0x7E).compactMap(Unicode.Scalar.init) {
            var policy = RecipientPolicyConfiguration()
            policy.recipientDelimiter = String(Character(scalar))
            guard (try? policy.validate()) != nil else { continue }
            accepted.append(Character(scalar))
        }
        #expect(accepted.contains("+") && accepted.contains("="))
        for delimiter in accepted {
            #expect(AgentUsername.check("alice\(delimiter)github") != nil, "agent username with \(delimiter)")
            #expect(MailboxAddress("alice\(delimiter)github@mail.example") == nil, "Mail.td address with \(delimiter)")
        }
    }
}
