import DNS
import Foundation
import Logging
import PosternTestSupport
import SignInProviders
import Testing

@testable import PosternApp
@testable import PosternOperations

/// A provider misconfigured by one character (issue 68: an issuer with a trailing slash) is named at start and in
/// `postern oidc show` with both issuers, the configured one and the one the provider's document states; a loopback
/// provider whose document states its issuer without the slash.
@Suite("Provider discovery checked at start and in oidc show")
struct ProviderDiscoveryCheckTests {
    /// A configuration whose provider `corp` has the origin's issuer plus `suffix`, on a new data directory.
    static func configuration(_ origin: TestOrigin, issuerSuffix: String, data: String) -> PosternConfiguration {
        var configuration = PosternConfiguration()
        configuration.storage.dataDirectory = data
        configuration.signInProviders.providers = [
            SignInProvider(
                name: "corp", kind: .oidc(issuer: origin.url("") + issuerSuffix), clientID: "postern-client",
                clientSecret: .init("secret"), displayName: "Corp", scopes: ["openid", "email"], surfaces: [.owners],
                allowPrivateNetwork: true)
        ]
        return configuration
    }

    /// A loopback provider whose discovery document states `origin.url("")` as its issuer.
    static func provider() throws -> TestOrigin {
        let origin = try TestOrigin()
        let document = """
            {"issuer":"\(origin.url(""))","authorization_endpoint":"\(origin.url("/authorize"))",\
            "token_endpoint":"\(origin.url("/token"))","jwks_uri":"\(origin.url("/jwks"))"}
            """
        origin.set("/.well-known/openid-configuration", body: document)
        return origin
    }

    @Test("a trailing slash on the configured issuer: oidc show and the start-up warning name both issuers")
    func trailingSlash() async throws {
        let origin = try Self.provider()
        defer { origin.stop() }
        let data = NSTemporaryDirectory() + "postern-oidc-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: data) }
        let stated = origin.url("")
        let configuration = Self.configuration(origin, issuerSuffix: "/", data: data)
        let capture = DataDirectoryTests.Capture()
        let logger = DataDirectoryTests.logger(capture)
        let lines = try await Operations.showSignInProviders(configuration: configuration, logger: logger)
        let expected =
            "the provider's discovery document states issuer \"\(stated)\", but POSTERN_OIDC_CORP_ISSUER is "
            + "\"\(stated)/\": they must be equal, byte for byte"
        #expect(lines.contains("  oidc issuer \(stated)/: discovery FAILED: \(expected)"), "\(lines)")
        #expect(!lines.joined().contains("discovery(issuerMismatch"), "\(lines)")

        let flow = try #require(
            try Surfaces.signInFlow(
                configuration, identity: PublicIdentity(baseURL: "http://127.0.0.1:1", issuer: "http://127.0.0.1:1"),
                database: try Operations.migratedDatabase(configuration, logger: logger),
                resolver: Surfaces.resolver(configuration, threads: DNSResolver.threadPool()), clock: { 1_800_000_000 }))
        await ProviderDiscoveryCheck.warn(flow, logger: logger)
        #expect(capture.text.contains("sign-in provider corp cannot be used: \(expected)"), "\(capture.text)")
    }

    @Test("the issuer as the provider states it: discovery ok, no warning")
    func matching() async throws {
        let origin = try Self.provider()
        defer { origin.stop() }
        let data = NSTemporaryDirectory() + "postern-oidc-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: data) }
        let configuration = Self.configuration(origin, issuerSuffix: "", data: data)
        let lines = try await Operations.showSignInProviders(
            configuration: configuration, logger: Logger(label: "test"))
        #expect(lines.contains { $0.hasPrefix("  oidc issuer \(origin.url("")): discovery ok") }, "\(lines)")
    }
}
