import ConfigurationReading
import Testing
import WebAuthn

@Suite("WebAuthn: the relying party's configuration")
struct WebAuthnConfigurationTests {
    static func read(_ values: [String: String]) throws -> WebAuthnConfiguration {
        try WebAuthnConfiguration(config: ConfigurationReader { values[$0] })
    }

    @Test("unset, the RP ID is the public URL's host and the one origin the public URL's")
    func defaults() throws {
        let configuration = try Self.read([:])
        try configuration.validate(publicURL: "https://Auth.Example.com/")
        let party = try #require(configuration.relyingParty(publicURL: "https://Auth.Example.com/"))
        #expect(party.id == "auth.example.com")
        #expect(party.origins == ["https://auth.example.com"])
        let local = try #require(configuration.relyingParty(publicURL: "http://localhost:8080"))
        #expect(local.id == "localhost" && local.origins == ["http://localhost:8080"])
        // The listener's default URL is an IP address: no relying party there.
        #expect(configuration.relyingParty(publicURL: "http://127.0.0.1:8080") == nil)
    }

    @Test("a registrable suffix of the host and extra origins under it are taken")
    func suffixAndOrigins() throws {
        let configuration = try Self.read([
            "POSTERN_WEBAUTHN_RP_ID": "Example.com",
            "POSTERN_WEBAUTHN_ORIGINS": "https://mail.example.com, https://example.com:8443",
        ])
        try configuration.validate(publicURL: "https://auth.example.com")
        let party = try #require(configuration.relyingParty(publicURL: "https://auth.example.com:443"))
        #expect(party.id == "example.com")
        #expect(party.origins == ["https://auth.example.com", "https://mail.example.com", "https://example.com:8443"])
    }

    @Test(
        "refused, naming the key",
        arguments: [
            (["POSTERN_WEBAUTHN_RP_ID": "https://example.com"], "POSTERN_WEBAUTHN_RP_ID"),
            (["POSTERN_WEBAUTHN_RP_ID": "192.0.2.1"], "POSTERN_WEBAUTHN_RP_ID"),
            (["POSTERN_WEBAUTHN_RP_ID": "exa_mple.com"], "POSTERN_WEBAUTHN_RP_ID"),
            (["POSTERN_WEBAUTHN_ORIGINS": "http://mail.example.com"], "POSTERN_WEBAUTHN_ORIGINS"),
            (["POSTERN_WEBAUTHN_ORIGINS": "https://mail.example.com/login"], "POSTERN_WEBAUTHN_ORIGINS"),
            (["POSTERN_WEBAUTHN_ORIGINS": "mail.example.com"], "POSTERN_WEBAUTHN_ORIGINS"),
        ])
    func refusedAlone(values: [String: String], key: String) {
        let error = #expect(throws: ConfigurationError.self) { try Self.read(values) }
        #expect(error?.key == key)
    }

    @Test(
        "refused against the public URL, naming the key",
        arguments: [
            (["POSTERN_WEBAUTHN_RP_ID": "other.com"], "https://auth.example.com", "POSTERN_WEBAUTHN_RP_ID"),
            (["POSTERN_WEBAUTHN_RP_ID": "com"], "https://auth.example.com", "POSTERN_WEBAUTHN_RP_ID"),
            (["POSTERN_WEBAUTHN_RP_ID": "ample.com"], "https://auth.example.com", "POSTERN_WEBAUTHN_RP_ID"),
            (["POSTERN_WEBAUTHN_RP_ID": "mail.example.com"], "https://auth.example.com", "POSTERN_WEBAUTHN_RP_ID"),
            (
                ["POSTERN_WEBAUTHN_ORIGINS": "https://evil.example"], "https://auth.example.com",
                "POSTERN_WEBAUTHN_ORIGINS"
            ),
            (
                ["POSTERN_WEBAUTHN_ORIGINS": "https://example.com"], "https://auth.example.com",
                "POSTERN_WEBAUTHN_ORIGINS"
            ),
        ])
    func refusedAgainstURL(values: [String: String], publicURL: String, key: String) throws {
        let configuration = try Self.read(values)
        let error = #expect(throws: ConfigurationError.self) { try configuration.validate(publicURL: publicURL) }
        #expect(error?.key == key)
    }

    @Test("a set RP ID with no public URL is refused: the host it must be under is not known")
    func rpIDWithoutPublicURL() throws {
        let configuration = try Self.read(["POSTERN_WEBAUTHN_RP_ID": "example.com"])
        let error = #expect(throws: ConfigurationError.self) { try configuration.validate(publicURL: nil) }
        #expect(error?.key == "POSTERN_WEBAUTHN_RP_ID")
        try Self.read([:]).validate(publicURL: nil)
    }

    @Test("without the Public Suffix List, a public suffix of two labels passes start-up (docs/passkeys.md says so)")
    func publicSuffixPasses() throws {
        // co.uk is no registrable domain, and browsers refuse it at the ceremony; start-up cannot tell.
        let configuration = try Self.read(["POSTERN_WEBAUTHN_RP_ID": "co.uk"])
        try configuration.validate(publicURL: "https://auth.example.co.uk")
        #expect(configuration.relyingParty(publicURL: "https://auth.example.co.uk")?.id == "co.uk")
        // One label is refused.
        let uk = try Self.read(["POSTERN_WEBAUTHN_RP_ID": "uk"])
        #expect(throws: ConfigurationError.self) { try uk.validate(publicURL: "https://auth.example.co.uk") }
    }
}
