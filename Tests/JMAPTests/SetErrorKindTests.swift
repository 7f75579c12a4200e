import JSON
import Testing

@testable import JMAP

/// A `/set` refusal is typed (issue 67): its kind's raw value is the wire `type` of RFC 8620 5.3 and RFC 8621, and
/// the in-process sender reads back the kind it was written with.
@Suite("JMAP SetError kinds")
struct SetErrorKindTests {
    @Test("each kind is written under its RFC wire name and read back as the same kind with its details")
    func roundTrip() throws {
        let wireNames: [SetError.Kind: String] = [
            .forbidden: "forbidden", .overQuota: "overQuota", .tooLarge: "tooLarge", .rateLimit: "rateLimit",
            .notFound: "notFound", .invalidProperties: "invalidProperties", .blobNotFound: "blobNotFound",
            .tooManyDataSources: "tooManyDataSources", .tooManyKeywords: "tooManyKeywords",
            .invalidEmail: "invalidEmail",
            .forbiddenMailFrom: "forbiddenMailFrom", .forbiddenFrom: "forbiddenFrom",
            .forbiddenToSend: "forbiddenToSend", .noRecipients: "noRecipients",
            .invalidRecipients: "invalidRecipients", .cannotUnsend: "cannotUnsend",
            .mailboxHasChild: "mailboxHasChild", .mailboxHasEmail: "mailboxHasEmail",
        ]
        #expect(Set(wireNames.keys) == Set(SetError.Kind.allCases))
        for kind in SetError.Kind.allCases {
            let error = SetError(kind, description: "why", invalidRecipients: ["a@b.test"], maxSize: 10)
            #expect(error.json["type"]?.stringValue == wireNames[kind])
            let read = try #require(SetError(json: error.json))
            #expect(read == error)
        }
    }

    @Test("a type this server never writes is not read as a SetError")
    func unknownType() {
        #expect(SetError(json: .object([("type", .string("somethingElse")), ("description", .string(""))])) == nil)
        #expect(SetError(json: .object([("description", .string("no type"))])) == nil)
    }
}
