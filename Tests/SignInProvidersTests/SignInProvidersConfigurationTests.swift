import ConfigurationReading
import Testing

@testable import SignInProviders

/// The providers' keys (issue 54 item 1): the documented defaults, every key read, and every bad or missing value
/// refused naming its key.
@Suite("Sign-in providers configuration")
struct SignInProvidersConfigurationTests {
    /// A file system of one secret file.
    static func readFile(_ path: String) -> String? {
        ["/run/secrets/google": "file-secret\n", "/run/secrets/empty": "\n"][path]
    }

    static func read(_ values: [String: String]) throws -> SignInProvidersConfiguration {
        try SignInProvidersConfiguration(config: ConfigurationReader { values[$0] }, readFile: readFile)
    }

    /// The least a working OpenID Connect provider named `google` needs.
    static let google = [
        "POSTERN_OIDC_PROVIDERS": "google", "POSTERN_OIDC_GOOGLE_ISSUER": "https://accounts.google.com",
        "POSTERN_OIDC_GOOGLE_CLIENT_ID": "123.apps.googleusercontent.com",
        "POSTERN_OIDC_GOOGLE_CLIENT_SECRET": "GOCSPX-secret",
    ]

    /// ``google``'s keys with `changes` (nil unsets a key), read.
    static func readGoogle(_ changes: [String: String?]) throws -> SignInProvidersConfiguration {
        var values = google
        for (key, value) in changes { values[key] = value }
        return try read(values)
    }

    @Test("no key: no provider")
    func none() throws {
        #expect(try Self.read([:]).providers.isEmpty)
        #expect(try Self.read(["POSTERN_OIDC_PROVIDERS": " , "]).providers.isEmpty)
    }

    @Test("an OpenID Connect provider with only the required keys has the documented defaults")
    func oidcDefaults() throws {
        let provider = try #require(try Self.read(Self.google).provider(named: "google"))
        #expect(provider.kind == .oidc(issuer: "https://accounts.google.com"))
        #expect(provider.clientID == "123.apps.googleusercontent.com")
        #expect(provider.clientSecret == .init("GOCSPX-secret"))
        #expect(provider.displayName == "Google")
        #expect(provider.scopes == ["openid", "email", "profile"])
        #expect(provider.surfaces == [.owners, .pro])
        #expect(!provider.allowSignUp && !provider.trustEmail && !provider.allowPrivateNetwork && !provider.logout)
        #expect(provider.allowedDomains.isEmpty)
        #expect(provider.key("TRUST_EMAIL") == "POSTERN_OIDC_GOOGLE_TRUST_EMAIL")
    }

    @Test("the secret is never in a provider's description")
    func secretRedacted() throws {
        let provider = try #require(try Self.read(Self.google).providers.first)
        #expect(!String(describing: provider).contains("GOCSPX-secret"))
        #expect(String(describing: provider.clientSecret) == "redacted")
    }

    @Test("every key is read, trimmed and parsed")
    func everyKey() throws {
        let configuration = try Self.readGoogle(
            [
                "POSTERN_OIDC_PROVIDERS": "google, corp1", "POSTERN_OIDC_GOOGLE_DISPLAY_NAME": " Google Workspace ",
                "POSTERN_OIDC_GOOGLE_SCOPES": "openid email", "POSTERN_OIDC_GOOGLE_SURFACES": "Owners",
                "POSTERN_OIDC_GOOGLE_ALLOW_SIGNUP": "on", "POSTERN_OIDC_GOOGLE_TRUST_EMAIL": "yes",
                "POSTERN_OIDC_GOOGLE_ALLOWED_DOMAINS": "Example.COM, staff.example.org",
                "POSTERN_OIDC_GOOGLE_CLIENT_SECRET": nil,
                "POSTERN_OIDC_GOOGLE_CLIENT_SECRET_FILE": "/run/secrets/google", "POSTERN_OIDC_GOOGLE_LOGOUT": "true",
                "POSTERN_OIDC_CORP1_KIND": "GitHub", "POSTERN_OIDC_CORP1_CLIENT_ID": "Iv1.abc",
                "POSTERN_OIDC_CORP1_CLIENT_SECRET": "gh-secret", "POSTERN_OIDC_CORP1_SURFACES": "pro",
                "POSTERN_OIDC_CORP1_GITHUB_WEB_URL": "http://127.0.0.1:9000/",
                "POSTERN_OIDC_CORP1_GITHUB_API_URL": "http://127.0.0.1:9000/api/v3",
                "POSTERN_OIDC_CORP1_ALLOW_PRIVATE_NETWORK": "on",
            ])
        #expect(configuration.providers.map(\.name) == ["google", "corp1"])
        let google = try #require(configuration.provider(named: "google"))
        #expect(google.displayName == "Google Workspace" && google.scopes == ["openid", "email"])
        #expect(google.surfaces == [.owners] && google.allowSignUp && google.trustEmail)
        #expect(google.allowedDomains == ["example.com", "staff.example.org"])
        #expect(google.clientSecret.value == "file-secret" && google.logout)
        let corp = try #require(configuration.provider(named: "corp1"))
        #expect(corp.kind == .github(webURL: "http://127.0.0.1:9000", apiURL: "http://127.0.0.1:9000/api/v3"))
        #expect(corp.displayName == "GitHub" && corp.scopes == ["read:user", "user:email"])
        #expect(corp.surfaces == [.pro] && corp.allowPrivateNetwork && !corp.allowSignUp)
    }

    @Test("GitHub's defaults are github.com's")
    func gitHubDefaults() throws {
        let provider = try #require(
            try Self.read([
                "POSTERN_OIDC_PROVIDERS": "github", "POSTERN_OIDC_GITHUB_KIND": "github",
                "POSTERN_OIDC_GITHUB_CLIENT_ID": "Iv1.x", "POSTERN_OIDC_GITHUB_CLIENT_SECRET": "s",
            ]).providers.first)
        #expect(provider.kind == .github(webURL: "https://github.com", apiURL: "https://api.github.com"))
    }

    @Test(
        "a bad or missing value is refused naming its key",
        arguments: [
            ("POSTERN_OIDC_PROVIDERS", "Google"), ("POSTERN_OIDC_PROVIDERS", "google,google"),
            ("POSTERN_OIDC_PROVIDERS", "my-idp"), ("POSTERN_OIDC_PROVIDERS", String(repeating: "a", count: 33)),
            ("POSTERN_OIDC_PROVIDERS", (1...17).map { "p\($0)" }.joined(separator: ",")),
            ("POSTERN_OIDC_GOOGLE_KIND", "saml"), ("POSTERN_OIDC_GOOGLE_ISSUER", nil),
            ("POSTERN_OIDC_GOOGLE_ISSUER", "accounts.google.com"), ("POSTERN_OIDC_GOOGLE_ISSUER", "http://idp.example"),
            ("POSTERN_OIDC_GOOGLE_ISSUER", "https://idp.example/?tenant=1"),
            ("POSTERN_OIDC_GOOGLE_ISSUER", "https://idp.example/#x"),
            ("POSTERN_OIDC_GOOGLE_ISSUER", "https://user@idp.example"), ("POSTERN_OIDC_GOOGLE_ISSUER", "ftp://idp"),
            ("POSTERN_OIDC_GOOGLE_CLIENT_ID", nil), ("POSTERN_OIDC_GOOGLE_CLIENT_ID", "a b"),
            ("POSTERN_OIDC_GOOGLE_CLIENT_SECRET", nil),
            ("POSTERN_OIDC_GOOGLE_DISPLAY_NAME", String(repeating: "x", count: 65)),
            ("POSTERN_OIDC_GOOGLE_DISPLAY_NAME", "Go\u{7}ogle"), ("POSTERN_OIDC_GOOGLE_SCOPES", "email profile"),
            ("POSTERN_OIDC_GOOGLE_SCOPES", "openid \"quoted\""), ("POSTERN_OIDC_GOOGLE_SCOPES", " "),
            ("POSTERN_OIDC_GOOGLE_SURFACES", "owners,admins"), ("POSTERN_OIDC_GOOGLE_SURFACES", ","),
            ("POSTERN_OIDC_GOOGLE_ALLOW_SIGNUP", "sometimes"), ("POSTERN_OIDC_GOOGLE_TRUST_EMAIL", "maybe"),
            ("POSTERN_OIDC_GOOGLE_ALLOWED_DOMAINS", "example.com"),
            ("POSTERN_OIDC_GOOGLE_ALLOW_PRIVATE_NETWORK", "2"), ("POSTERN_OIDC_GOOGLE_LOGOUT", "sure"),
            ("POSTERN_OIDC_GOOGLE_GITHUB_WEB_URL", "https://github.example"),
            ("POSTERN_OIDC_GOOGLE_GITHUB_API_URL", "https://api.github.example"),
        ] as [(String, String?)])
    func refused(key: String, value: String?) throws {
        let error = #expect(throws: ConfigurationError.self) { try Self.readGoogle([key: value]) }
        #expect(error?.key == key)
    }

    @Test(
        "secret files, the allowed domains' rule and the keys of the other kind are refused naming their key",
        arguments: [
            (
                ["POSTERN_OIDC_GOOGLE_CLIENT_SECRET_FILE": "/run/secrets/google"],
                "POSTERN_OIDC_GOOGLE_CLIENT_SECRET_FILE"
            ),
            (
                ["POSTERN_OIDC_GOOGLE_CLIENT_SECRET": nil, "POSTERN_OIDC_GOOGLE_CLIENT_SECRET_FILE": "/missing"],
                "POSTERN_OIDC_GOOGLE_CLIENT_SECRET_FILE"
            ),
            (
                [
                    "POSTERN_OIDC_GOOGLE_CLIENT_SECRET": nil,
                    "POSTERN_OIDC_GOOGLE_CLIENT_SECRET_FILE": "/run/secrets/empty",
                ],
                "POSTERN_OIDC_GOOGLE_CLIENT_SECRET_FILE"
            ),
            (
                ["POSTERN_OIDC_GOOGLE_ALLOW_SIGNUP": "on", "POSTERN_OIDC_GOOGLE_ALLOWED_DOMAINS": "ex ample.com"],
                "POSTERN_OIDC_GOOGLE_ALLOWED_DOMAINS"
            ),
            (
                ["POSTERN_OIDC_GOOGLE_ALLOW_SIGNUP": "on", "POSTERN_OIDC_GOOGLE_ALLOWED_DOMAINS": "-bad.example"],
                "POSTERN_OIDC_GOOGLE_ALLOWED_DOMAINS"
            ),
            (["POSTERN_OIDC_GOOGLE_KIND": "github"], "POSTERN_OIDC_GOOGLE_ISSUER"),
            (
                [
                    "POSTERN_OIDC_GOOGLE_KIND": "github", "POSTERN_OIDC_GOOGLE_ISSUER": nil,
                    "POSTERN_OIDC_GOOGLE_LOGOUT": "on",
                ], "POSTERN_OIDC_GOOGLE_LOGOUT"
            ),
            (
                [
                    "POSTERN_OIDC_GOOGLE_KIND": "github", "POSTERN_OIDC_GOOGLE_ISSUER": nil,
                    "POSTERN_OIDC_GOOGLE_GITHUB_API_URL": "http://127.0.0.1:9000",
                ], "POSTERN_OIDC_GOOGLE_GITHUB_API_URL"
            ),
        ] as [([String: String?], String)])
    func refusedCombination(changes: [String: String?], key: String) throws {
        let error = #expect(throws: ConfigurationError.self) { try Self.readGoogle(changes) }
        #expect(error?.key == key)
    }

    @Test("an http issuer on loopback is taken with _ALLOW_PRIVATE_NETWORK, exactly as written")
    func privateIssuer() throws {
        let configuration = try Self.readGoogle(
            [
                "POSTERN_OIDC_GOOGLE_ISSUER": "http://127.0.0.1:5000/realms/test/",
                "POSTERN_OIDC_GOOGLE_ALLOW_PRIVATE_NETWORK": "on",
            ])
        let provider = try #require(configuration.providers.first)
        #expect(provider.kind == .oidc(issuer: "http://127.0.0.1:5000/realms/test/"))
    }

    @Test("_TRUST_EMAIL is refused with open owner sign-up, naming it; closed sign-up takes it")
    func trustEmailWithOpenSignUp() throws {
        let configuration = try Self.readGoogle(
            [
                "POSTERN_OIDC_PROVIDERS": "google,corp", "POSTERN_OIDC_CORP_ISSUER": "https://sso.corp.example",
                "POSTERN_OIDC_CORP_CLIENT_ID": "postern", "POSTERN_OIDC_CORP_CLIENT_SECRET": "s",
                "POSTERN_OIDC_CORP_TRUST_EMAIL": "on",
            ])
        try configuration.validate(ownerSignUpOpen: false)
        let error = #expect(throws: ConfigurationError.self) { try configuration.validate(ownerSignUpOpen: true) }
        #expect(error?.key == "POSTERN_OIDC_CORP_TRUST_EMAIL")
        try Self.read(Self.google).validate(ownerSignUpOpen: true)
    }
}
