import Foundation
import Testing

@testable import PosternApp

/// The base URL and issuer a server announces: the listener's own address unless configured.
@Suite("Public identity")
struct PublicIdentityTests {
    @Test(
        "a listener's URL: the bound host and port, wildcards as loopback, IPv6 bracketed",
        arguments: [
            ("127.0.0.1", 8080, "http://127.0.0.1:8080"),
            ("0.0.0.0", 41234, "http://127.0.0.1:41234"),
            ("", 41234, "http://127.0.0.1:41234"),
            ("::", 9, "http://[::1]:9"),
            ("0:0:0:0:0:0:0:0", 9, "http://[::1]:9"),
            ("::1", 9, "http://[::1]:9"),
            ("2001:db8::5", 443, "http://[2001:db8::5]:443"),
            ("fe80::1%eth0", 9, "http://[fe80::1%25eth0]:9"),
            ("localhost", 9, "http://localhost:9"),
            ("10.1.2.3", 80, "http://10.1.2.3:80"),
        ])
    func listenerURL(host: String, port: Int, expected: String) throws {
        let url = PublicIdentity.listenerURL(host: host, port: port)
        #expect(url == expected)
        // Every one is a URL the configuration itself would accept as POSTERN_PUBLIC_URL.
        var configuration = PosternConfiguration()
        configuration.identity.publicURL = url
        try configuration.validate()
    }

    /// A configuration's `POSTERN_PUBLIC_URL` and `JWT_ISSUER`, the listener, and the identity expected.
    struct Case: Sendable, CustomTestStringConvertible {
        var publicURL: String?
        var issuer: String?
        var host: String
        var port: Int
        var baseURL: String
        var expectedIssuer: String
        var testDescription: String { "url \(publicURL ?? "unset"), issuer \(issuer ?? "unset"), \(host) \(port)" }
    }

    @Test(
        "unset, both follow the listener; a configured URL wins and is the issuer default; a configured issuer wins",
        arguments: [
            Case(
                host: "127.0.0.1", port: 41234, baseURL: "http://127.0.0.1:41234",
                expectedIssuer: "http://127.0.0.1:41234"),
            Case(
                publicURL: "https://auth.example.test/", host: "0.0.0.0", port: 41234,
                baseURL: "https://auth.example.test", expectedIssuer: "https://auth.example.test"),
            Case(
                issuer: "urn:postern:test", host: "::1", port: 8080, baseURL: "http://[::1]:8080",
                expectedIssuer: "urn:postern:test"),
            Case(
                publicURL: "https://a.example.test", issuer: "https://b.example.test", host: "127.0.0.1", port: 1,
                baseURL: "https://a.example.test", expectedIssuer: "https://b.example.test"),
        ])
    func identity(_ c: Case) {
        var configuration = PosternConfiguration()
        configuration.identity.publicURL = c.publicURL
        configuration.identity.issuer = c.issuer
        #expect(
            configuration.identity.publicIdentity(listeningOn: c.host, port: c.port)
                == PublicIdentity(baseURL: c.baseURL, issuer: c.expectedIssuer))
    }

    @Test("an empty public URL or issuer is refused, naming the key")
    func emptyValuesRefused() {
        for key in ["POSTERN_PUBLIC_URL", "JWT_ISSUER"] {
            let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader.parse { [key: ""][$0] } }
            #expect(error?.key == key)
        }
    }
}
