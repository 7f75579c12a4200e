import JSON
import OAuthGrants
import Testing

@Suite("The claims request parameter (OpenID Connect Core 5.5): email, email_verified and name, nothing else")
struct OIDCClaimsRequestTests {
    static let available: [OIDCClaimsRequest.Name: JSONValue] = [
        .email: .string("ann@example.com"), .emailVerified: .bool(false), .name: .string("ann@example.com"),
    ]

    @Test("Core 5.5's example: only the claims Postern knows are kept, each for its target, in name order")
    func coreExample() throws {
        // OpenID Connect Core 1.0 section 5.5's non-normative example, as sent.
        let request = try OIDCClaimsRequest(
            parameter: """
                {"userinfo":{"given_name":{"essential":true},"nickname":null,"email":{"essential":true},
                 "email_verified":{"essential":true},"picture":null,"http://example.info/claims/groups":null},
                 "id_token":{"auth_time":{"essential":true},"acr":{"values":["urn:mace:incommon:iap:silver"]}}}
                """)
        #expect(request.idToken.isEmpty)
        #expect(request.userinfo.map(\.name) == [.email, .emailVerified])
        #expect(request.userinfo.allSatisfy { $0.essential })
        #expect(request.scopes == ["email"])
        let released = request.released(.userinfo, from: Self.available)
        #expect(released.map(\.0) == ["email", "email_verified"])
        #expect(request.released(.idToken, from: Self.available).isEmpty)
    }

    @Test("essential asks for nothing more; a value the owner's does not equal leaves the claim absent")
    func values() throws {
        let request = try OIDCClaimsRequest(
            parameter: #"{"id_token":{"name":null,"email_verified":{"essential":true,"value":true},"#
                + #""email":{"values":["bob@example.com","ann@example.com"]}}}"#)
        let released = request.released(.idToken, from: Self.available)
        #expect(released.map(\.0) == ["email", "name"])
        #expect(released.map(\.1) == [.string("ann@example.com"), .string("ann@example.com")])
        #expect(request.scopes == ["email", "profile"])
        #expect(request.released(.userinfo, from: Self.available).isEmpty)
    }

    @Test("the normal form reads back the same request, and drops what was ignored")
    func normalForm() throws {
        let request = try OIDCClaimsRequest(
            parameter: #"{"userinfo":{"name":{"essential":false,"x":1},"email":{"essential":true,"value":"a@b.c"}},"#
                + #""id_token":{"email_verified":null,"acr":null},"other":[1]}"#)
        #expect(
            request.normalJSON
                == #"{"id_token":{"email_verified":null},"userinfo":{"email":{"essential":true,"values":["a@b.c"]},"#
                + #""name":null}}"#)
        #expect(OIDCClaimsRequest(normalJSON: request.normalJSON) == request)
        #expect(OIDCClaimsRequest(normalJSON: nil) == .none)
        #expect(try OIDCClaimsRequest(parameter: "{}").isEmpty)
        #expect(try OIDCClaimsRequest(parameter: #"{"userinfo":{"picture":null}}"#).normalJSON == "{}")
    }

    @Test("malformed: not JSON, not an object, a target or a claim of ours of the wrong type, too long", arguments: [
        "", "email", "[]", #"{"userinfo":[]}"#, #"{"id_token":"email"}"#, #"{"userinfo":{"email":true}}"#,
        #"{"userinfo":{"email":{"essential":"yes"}}}"#, #"{"id_token":{"name":{"values":"ann"}}}"#,
        #"{"userinfo":{"email":{"values":[[[["deep"]]]]}}}"#,
        #"{"userinfo":{"picture":null,"x":""#
            + String(repeating: "a", count: OIDCClaimsRequest.maximumLength) + #""}}"#,
    ])
    func malformed(text: String) {
        #expect(throws: OIDCClaimsRequest.Failure.self) { try OIDCClaimsRequest(parameter: text) }
    }

    @Test("a claim of another name is ignored whatever its value")
    func othersIgnored() throws {
        #expect(try OIDCClaimsRequest(parameter: #"{"userinfo":{"picture":true,"phone_number":[1]}}"#).isEmpty)
    }
}
