import Testing

@testable import AgentAuth

@Suite("Session request bodies")
struct AgentSessionRequestTests {
    static func parse(_ json: String) -> Result<AgentSessionRequest, AgentAuthError> {
        AgentSessionRequest.parse(Array(json.utf8))
    }

    @Test("Signup and login bodies, nonce as string or integer, unknown fields ignored")
    func accepted() throws {
        let signup = try Self.parse(#"{"powHex":"ab","nonce":"51","username":"myagent","utm_source":"x"}"#).get()
        #expect(signup == AgentSessionRequest(powHex: "ab", nonce: "51", intent: .signup(username: "myagent")))
        let login = try Self.parse(#"{"powHex":"ab","nonce":7,"apiKey":"k","username":null}"#).get()
        #expect(login == AgentSessionRequest(powHex: "ab", nonce: "7", intent: .login(apiKey: "k")))
    }

    @Test("Refusals", arguments: [
        ("", AgentAuthError.malformedBody),
        ("not json", .malformedBody),
        ("[1,2]", .malformedBody),
        (#"{"powHex":1,"nonce":"1","username":"myagent"}"#, .malformedBody),
        (#"{"powHex":"ab","nonce":"1","username":5}"#, .malformedBody),
        (#"{"powHex":"ab","nonce":"1"}"#, .usernameXorAPIKey),
        (#"{"powHex":"ab","nonce":"1","username":"myagent","apiKey":"k"}"#, .usernameXorAPIKey),
        (#"{"powHex":"ab","username":"myagent"}"#, .invalidNonce),
        (#"{"powHex":"ab","nonce":"-1","username":"myagent"}"#, .invalidNonce),
        (#"{"powHex":"ab","nonce":-1,"username":"myagent"}"#, .invalidNonce),
        (#"{"powHex":"ab","nonce":"0x10","username":"myagent"}"#, .invalidNonce),
        (#"{"powHex":"ab","nonce":true,"username":"myagent"}"#, .invalidNonce),
        (#"{"nonce":"1","username":"myagent"}"#, .invalidPowHex),
    ])
    func refused(json: String, expected: AgentAuthError) {
        #expect(throws: expected) { try Self.parse(json).get() }
    }
}
