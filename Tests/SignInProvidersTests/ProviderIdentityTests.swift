import JSON
import JWT
import SignInProviders
import Testing

/// What a provider says of the person: an id_token's claims with userinfo merged only for the same subject, and
/// GitHub's user and primary email.
@Suite("Provider identities: userinfo and GitHub's user")
struct ProviderIdentityTests {
    static let fromToken = ProviderIdentity(
        issuer: "https://sso.example", subject: "alice", email: "old@example.com", emailVerified: false, name: "A")

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("userinfo with the id_token's sub adds its email (with its own verification) and name")
    func merges() throws {
        let merged = try Self.fromToken.merging(
            userinfo: Self.bytes(#"{"sub":"alice","email":"a@example.com","email_verified":true,"name":"Alice"}"#))
        #expect(merged.email == "a@example.com" && merged.emailVerified && merged.name == "Alice")
        #expect(merged.issuer == "https://sso.example" && merged.subject == "alice")
        let unverified = try Self.fromToken.merging(userinfo: Self.bytes(#"{"sub":"alice","email":"b@example.com"}"#))
        #expect(unverified.email == "b@example.com" && !unverified.emailVerified)
        #expect(try Self.fromToken.merging(userinfo: Self.bytes(#"{"sub":"alice"}"#)) == Self.fromToken)
    }

    @Test("userinfo of another sub, without one, or not an object is refused")
    func refusesUserinfo() {
        #expect(throws: ProviderIdentity.Refusal.subjectMismatch) {
            try Self.fromToken.merging(
                userinfo: Self.bytes(#"{"sub":"mallory","email":"victim@example.com","email_verified":true}"#))
        }
        for body in [#"{"email":"a@example.com"}"#, #"{"sub":7}"#, "[]", "nope"] {
            #expect(throws: ProviderIdentity.Refusal.malformed) {
                try Self.fromToken.merging(userinfo: Self.bytes(body))
            }
        }
    }

    @Test("GitHub: the numeric id is the subject; the primary address, private or not, with its verification")
    func gitHub() throws {
        let user = Self.bytes(#"{"login":"octocat","id":583231,"name":null,"email":null}"#)
        let emails = Self.bytes(
            #"[{"email":"other@example.com","primary":false,"verified":true,"visibility":null},"#
                + #"{"email":"octocat@users.noreply.example","primary":true,"verified":true,"visibility":"private"}]"#)
        let identity = try ProviderIdentity.gitHub(webURL: "https://github.com", user: user, emails: emails)
        #expect(
            identity
                == ProviderIdentity(
                    issuer: "https://github.com", subject: "583231", email: "octocat@users.noreply.example",
                    emailVerified: true, name: "octocat"))
        let unverified = try ProviderIdentity.gitHub(
            webURL: "https://github.com", user: user,
            emails: Self.bytes(
                #"[{"email":"o@example.com","primary":true,"verified":false},"#
                    + #"{"email":"v@example.com","primary":false,"verified":true}]"#))
        #expect(unverified.email == "o@example.com" && !unverified.emailVerified)
        let none = try ProviderIdentity.gitHub(webURL: "https://github.com", user: user, emails: Self.bytes("[]"))
        #expect(none.email == nil && !none.emailVerified)
        for (user, emails) in [
            (#"{"login":"octocat","id":"583231"}"#, "[]"), (#"{"login":"octocat"}"#, "[]"), (#"{"id":0}"#, "[]"),
            (#"{"id":1}"#, "{}"), ("[]", "[]"),
        ] {
            #expect(throws: ProviderIdentity.Refusal.malformed) {
                try ProviderIdentity.gitHub(
                    webURL: "https://github.com", user: Self.bytes(user), emails: Self.bytes(emails))
            }
        }
    }
}
