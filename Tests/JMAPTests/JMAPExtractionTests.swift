import JSON
import MIME
import MailStore
import PosternTestSupport
import Testing

@testable import JMAP

/// Postern's private capability `urn:postern:jmap:extract` (issue 85): `codes` and `links` as `Email/get` properties,
/// known only when `using` names it.
@Suite("JMAP extraction capability: codes and links on Email/get")
struct JMAPExtractionTests {
    static let core = #""urn:ietf:params:jmap:core","urn:ietf:params:jmap:mail""#
    static let extract = #""urn:postern:jmap:extract""#

    func deliver(_ harness: JMAPServiceHarness, subject: String, text: String) async throws -> String {
        let message = NewMailMessage(
            envelopeFrom: "noreply@service.example", from: [MailAddress(email: "noreply@service.example")],
            to: [MailAddress(email: "ada@agents.test")], subject: subject, messageID: nil, inReplyTo: [], references: [],
            sentAt: 1_700_000_000, textBody: text, preview: text, attachments: [],
            raw: Array("Subject: \(subject)\r\n\r\n\(text)".utf8))
        return try await harness.store.deliver(
            message, to: [.init(address: "ada@agents.test", quota: 1_000_000)], folder: .inbox, now: 1_700_000_000)[0]
    }

    /// `Email/get` of `id` with `properties`, under `using`; the method's response (name and arguments).
    func get(_ harness: JMAPServiceHarness, _ id: String, _ properties: String, using: String) async throws
        -> (String?, JSONValue?)
    {
        let body = ##"{"using":[\##(using)],"methodCalls":[["Email/get",{"accountId":"acct-ada","ids":["\##(id)"],"properties":[\##(properties)]},"g"]]}"##
        let response = await harness.send(.POST, "/jmap/api", bearer: "ada", body: body)
        let answer = try JSONValue.parse(response.body)["methodResponses"]?.arrayValue?.first
        return (answer?.arrayValue?.first?.stringValue, answer?.arrayValue?[1])
    }

    @Test("the session names the capability, on the server and on the account", arguments: StorageBackend.allCases)
    func session(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let session = try JSONValue.parse(await harness.send(.GET, "/.well-known/jmap", bearer: "ada").body)
        #expect(session["capabilities"]?["urn:postern:jmap:extract"]?.objectValue != nil)
        #expect(session["accounts"]?["acct-ada"]?["accountCapabilities"]?["urn:postern:jmap:extract"] != nil)
    }

    @Test(
        "with the capability: the code first and the verify link with its kind; without it: unknown properties",
        arguments: StorageBackend.allCases)
    func codesAndLinks(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let id = try await deliver(
            harness, subject: "Your verification code",
            text: "Order 5512 shipped.\nYour verification code is 482913.\n"
                + "Or confirm your address: https://service.example/verify?token=3f9a1c7e5b2d4f6a8c0e\n")

        let (name, answer) = try await get(harness, id, #""subject","codes","links""#, using: Self.core + "," + Self.extract)
        #expect(name == "Email/get")
        let email = try #require(answer?["list"]?.arrayValue?.first)
        let codes = try #require(email["codes"]?.arrayValue)
        #expect(codes.first?["value"]?.stringValue == "482913")
        #expect(codes.first?["source"]?.stringValue == "text")
        #expect(!codes.contains { $0["value"]?.stringValue == "5512" })
        let links = try #require(email["links"]?.arrayValue)
        #expect(links.first?["url"]?.stringValue == "https://service.example/verify?token=3f9a1c7e5b2d4f6a8c0e")
        #expect(links.first?["kind"]?.stringValue == "verify")

        let (plainName, plain) = try await get(harness, id, #""subject","codes""#, using: Self.core)
        #expect(plainName == "error")
        #expect(plain?["type"]?.stringValue == "invalidArguments")

        // Not in RFC 8621's default list: a client that names no properties gets the standard ones only.
        let body = ##"{"using":[\##(Self.core),\##(Self.extract)],"methodCalls":[["Email/get",{"accountId":"acct-ada","ids":["\##(id)"]},"g"]]}"##
        let all = try JSONValue.parse(await harness.send(.POST, "/jmap/api", bearer: "ada", body: body).body)
        let standard = try #require(all["methodResponses"]?.arrayValue?.first?.arrayValue?[1]["list"]?.arrayValue?.first)
        #expect(standard["subject"]?.stringValue == "Your verification code")
        #expect(standard["codes"] == nil && standard["links"] == nil)
    }

    @Test("a message with no code gives an empty list, not null", arguments: StorageBackend.allCases)
    func noCode(_ backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let id = try await deliver(
            harness, subject: "Your receipt", text: "Total: $42.00 on 2024-05-01. Call 555-0100 with questions.")
        let (_, answer) = try await get(harness, id, #""codes","links""#, using: Self.core + "," + Self.extract)
        let email = try #require(answer?["list"]?.arrayValue?.first)
        #expect(email["codes"]?.arrayValue?.isEmpty == true)
        #expect(email["links"]?.arrayValue?.isEmpty == true)
    }
}
