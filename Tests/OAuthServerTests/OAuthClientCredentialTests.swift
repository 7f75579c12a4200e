import AuthCrypto
import HTTP1
import OAuthServer
import Testing

@Suite("OAuth client authentication: what a request presents")
struct OAuthClientCredentialTests {
    static func basic(_ text: String) -> String { "Basic " + Base64.encode(Array(text.utf8)) }

    @Test("client_secret_basic: base64 of id:secret, each form-urlencoded, split at the first colon")
    func basic() throws {
        #expect(
            try OAuthClientCredential.read(authorization: Self.basic("s6BhdRkqt3:7Fjfp0ZBr1KtDRbnfVdmIw"), fields: [:])
                == .basic(clientID: "s6BhdRkqt3", secret: "7Fjfp0ZBr1KtDRbnfVdmIw"))
        // RFC 6749 section 2.3.1: the parts are form-urlencoded first, so a colon or a plus in a secret survives.
        #expect(
            try OAuthClientCredential.read(authorization: Self.basic("my%3Aid:pa%3Ass+wd%2B"), fields: [:])
                == .basic(clientID: "my:id", secret: "pa:ss wd+"))
        #expect(
            try OAuthClientCredential.read(authorization: "basic " + Base64.encode(Array("a:b:c".utf8)), fields: [:])
                == .basic(clientID: "a", secret: "b:c"))
        // The same id in the body is allowed; the credential still came in the header.
        let both = try OAuthClientCredential.read(authorization: Self.basic("a:b"), fields: ["client_id": "a"])
        #expect(both.viaHeader)
    }

    @Test("a malformed Basic credential, or Basic with a second method, is invalid_client 401 with a challenge")
    func basicRefusals() throws {
        let headers = [
            "Basic !!!", Self.basic("no-colon"), Self.basic(":x"), "Basic " + Base64.encode([0xff, 0x3a, 0x61]),
        ]
        for header in headers {
            let error = try #require(throws: OAuthError.self) {
                try OAuthClientCredential.read(authorization: header, fields: [:])
            }
            #expect(Self.unauthorized(error), "\(header)")
        }
        for fields in [["client_secret": "x"], ["client_assertion": "a.b.c"], ["client_assertion_type": "t"]] {
            let error = try #require(throws: OAuthError.self) {
                try OAuthClientCredential.read(authorization: Self.basic("a:b"), fields: fields)
            }
            #expect(Self.unauthorized(error), "\(fields)")
        }
        let mismatch = try #require(throws: OAuthError.self) {
            try OAuthClientCredential.read(authorization: Self.basic("a:b"), fields: ["client_id": "other"])
        }
        #expect(mismatch.code == "invalid_request")
    }

    @Test("client_secret_post, private_key_jwt and a public client_id are read from the body")
    func body() throws {
        #expect(
            try OAuthClientCredential.read(authorization: nil, fields: ["client_id": "a", "client_secret": "s"])
                == .post(clientID: "a", secret: "s"))
        let jwt = OAuthClientCredential.jwtBearerType
        #expect(
            try OAuthClientCredential.read(
                authorization: nil, fields: ["client_assertion_type": jwt, "client_assertion": "h.p.s"])
                == .assertion(clientID: nil, assertion: "h.p.s"))
        #expect(
            try OAuthClientCredential.read(
                authorization: nil, fields: ["client_id": "c", "client_assertion_type": jwt, "client_assertion": "h.p.s"])
                == .assertion(clientID: "c", assertion: "h.p.s"))
        #expect(try OAuthClientCredential.read(authorization: nil, fields: ["client_id": "a"]) == .none(clientID: "a"))
        // Another scheme is no client authentication at all.
        #expect(
            try OAuthClientCredential.read(authorization: "Bearer abc", fields: ["client_id": "a"])
                == .none(clientID: "a"))
        #expect(!(try OAuthClientCredential.read(authorization: nil, fields: ["client_id": "a"]).viaHeader))
    }

    @Test("body refusals are invalid_client 400: no client, a wrong assertion type, an assertion with a secret")
    func bodyRefusals() throws {
        let jwt = OAuthClientCredential.jwtBearerType
        let cases: [[String: String]] = [
            [:], ["client_secret": "s"], ["client_assertion": "h.p.s"],
            ["client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:saml2-bearer", "client_assertion": "x"],
            ["client_assertion_type": jwt],
            ["client_assertion_type": jwt, "client_assertion": "h.p.s", "client_secret": "s", "client_id": "c"],
        ]
        for fields in cases {
            let error = try #require(throws: OAuthError.self) {
                try OAuthClientCredential.read(authorization: nil, fields: fields)
            }
            #expect(Self.badRequest(error), "\(fields)")
        }
    }

    static func unauthorized(_ error: OAuthError) -> Bool {
        error.code == "invalid_client" && error.status == .unauthorized && error.challenge?.hasPrefix("Basic") == true
    }
    static func badRequest(_ error: OAuthError) -> Bool {
        error.code == "invalid_client" && error.status == .badRequest && error.challenge == nil
    }
}
