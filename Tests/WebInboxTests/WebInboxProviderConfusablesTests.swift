import MailboxAccounts
import PosternTestSupport
import SignInProviders
import Storage
import Testing

@testable import WebInbox

/// Review 6's medium finding (issue 66 item 1) on the Pro users' side: a provider's verified email written with a
/// Unicode look-alike signed into the provider-made Pro user with the ASCII address under `_TRUST_EMAIL`. Pro users'
/// emails are compared as addresses (`EmailAddress`: ASCII case only) and providers' sign-in refuses a verified
/// email whose local part is not ASCII, `email_not_ascii`.
@Suite("Web inbox: a look-alike of a Pro user's address signs into nobody and makes nobody (issue 66 item 1)")
struct WebInboxProviderConfusablesTests {
    static func outcome(
        _ harness: WebInboxHarness, _ subject: String, _ email: String, provider: SignInProvider
    ) async throws -> WebInboxProviderTests.ProviderOutcome {
        try await WebInboxProviderTests.outcome(
            harness, WebInboxProviderTests.identity(subject, email), provider: provider)
    }

    @Test(
        "_TRUST_EMAIL into a provider-made Pro user and _ALLOW_SIGNUP: every look-alike is refused, nothing linked or made",
        arguments: StorageBackend.allCases)
    func confusables(_ backend: StorageBackend) async throws {
        let trusted = WebInboxProviderTests.provider(signUp: true, trust: true)
        let harness = try WebInboxHarness(backend, provider: trusted)
        // Kate signs up with the provider: her email is proven, so _TRUST_EMAIL links into it.
        #expect(try await Self.outcome(harness, "kate-sub", "Kate@Example.org", provider: trusted) != .refused(nil))
        let kate = try #require(try await harness.mailbox.accounts.proUserLinkCandidate(email: "kate@example.org"))
        #expect(kate.emailVerified && kate.email == "kate@example.org")
        #expect(try await Self.outcome(harness, "kate-2", "KATE@example.ORG", provider: trusted) == .signIn(proUserID: kate.id))

        for (index, (spelled, _)) in AddressLookAlikes.table.enumerated() {
            #expect(
                try await Self.outcome(harness, "attacker-\(index)", spelled, provider: trusted)
                    == .refused(.emailNotASCII), "\(spelled)")
            #expect(try await WebInboxProviderTests.linked(harness, "attacker-\(index)") == nil, "\(spelled)")
            #expect(try await harness.mailbox.accounts.proUserLinkCandidate(email: spelled) == nil, "\(spelled)")
        }
        // The Pro users' rule keeps the look-alike exact: it is never Kate's.
        #expect(MailboxAccountService.normalizedProEmail(" \u{212A}ate@Example.ORG ") == "\u{212A}ate@example.org")
        #expect(MailboxAccountService.normalizedProEmail("Kate@Example.ORG") == "kate@example.org")
        #expect(try await WebInboxProviderTests.linked(harness, "kate-2") == kate.id)
    }
}
