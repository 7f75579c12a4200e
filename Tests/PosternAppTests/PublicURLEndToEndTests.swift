import PosternTestSupport
import SocketServer
import AuthCrypto
import Foundation
import HTTPServer
import Testing

@testable import PosternApp

/// With no public URL configured, everything that prints the base URL or mints a token names the address
/// the server really listens on, port 0 included; a configured `POSTERN_PUBLIC_URL` always wins.
@Suite("The public URL follows the listener")
struct PublicURLEndToEndTests {
    /// Where the base URL shows: `/llms.txt`, an agent error's `docs_url`, the `iss` of the challenge JWT,
    /// the OpenAPI `servers` entry and the remote-hash page's examples.
    private struct Announced {
        var llmsText: String
        var docsURL: String?
        var issuer: String?
        var openAPIServers: [String]
        var remotePage: String
        var landing: String
    }

    private func announced(by server: TestServer) async throws -> Announced {
        let client = try server.client()
        let llms = try await client.request("GET", "/llms.txt")
        #expect(llms.status == 200)
        let refusal = try await client.request("POST", "/api/v1/session")
        #expect(refusal.status == 401)
        let error = try refusal.json()["error"] as? [String: Any]
        let challenge = try await client.request("POST", "/api/v1/challenge")
        #expect(challenge.status == 200)
        let jwt = try #require(challenge.bearer)
        let payload = try #require(Base64URL.decode(String(jwt.split(separator: ".")[1])))
        let claims = try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
        let openAPI = try await client.request("GET", "/openapi.json").json()
        let servers = (openAPI["servers"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String }
        let page = try await client.request("GET", "/login_test", headers: [("Accept", "text/html")])
        let landing = try await client.request("GET", "/", headers: [("Accept", "text/html")])
        #expect(landing.status == 200)
        return Announced(
            llmsText: llms.text, docsURL: error?["docs_url"] as? String, issuer: claims?["iss"] as? String,
            openAPIServers: servers, remotePage: page.text, landing: landing.text)
    }

    @Test(
        "port 0, nothing configured: llms.txt, docs_url, iss, OpenAPI servers and the page name the real port",
        arguments: StorageBackend.allCases)
    func followsRealPort(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) {
            $0.identity.publicURL = nil
            $0.identity.issuer = nil
        }
        defer { Task { await server.stop() } }
        let base = "http://127.0.0.1:\(server.port)"
        #expect(server.port != 0)
        #expect(server.runtime.identity == PublicIdentity(baseURL: base, issuer: base))
        let seen = try await announced(by: server)
        #expect(seen.llmsText.contains(base + "/api/v1/challenge"))
        #expect(!seen.llmsText.contains("localhost:8080"))
        #expect(seen.docsURL?.hasPrefix(base + "/llms.txt#") == true, "\(seen.docsURL ?? "no docs_url")")
        #expect(seen.issuer == base)
        #expect(seen.openAPIServers == [base])
        #expect(seen.remotePage.contains("curl -s \(base)/register"))
        #expect(seen.landing.contains("postern agent signup --url \(base) --username NAME"))
    }

    @Test(
        "a configured POSTERN_PUBLIC_URL wins everywhere and is the issuer; JWT_ISSUER wins for iss",
        arguments: StorageBackend.allCases)
    func configuredURLWins(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) {
            $0.identity.publicURL = "https://auth.example.test/"
            $0.identity.issuer = nil
        }
        defer { Task { await server.stop() } }
        let base = "https://auth.example.test"
        let seen = try await announced(by: server)
        #expect(seen.llmsText.contains(base + "/api/v1/challenge"))
        #expect(!seen.llmsText.contains("127.0.0.1:\(server.port)"))
        #expect(seen.docsURL?.hasPrefix(base + "/llms.txt#") == true, "\(seen.docsURL ?? "no docs_url")")
        #expect(seen.issuer == base)
        #expect(seen.openAPIServers == [base])
        #expect(seen.remotePage.contains("curl -s \(base)/register"))

        let issued = try await TestServer.start(backend) {
            $0.identity.publicURL = nil
            $0.identity.issuer = "urn:postern:issuer"
        }
        defer { Task { await issued.stop() } }
        let other = try await announced(by: issued)
        #expect(other.issuer == "urn:postern:issuer")
        #expect(other.openAPIServers == ["http://127.0.0.1:\(issued.port)"])
    }

    @Test("a port in use stops the start with the address and the reason", arguments: StorageBackend.allCases)
    func portInUse(_ backend: StorageBackend) async throws {
        let taken = try ListeningSocket.bind(host: "127.0.0.1", port: 0)
        let error = await #expect(throws: ListenError.self) {
            _ = try await TestServer.start(backend) { $0.listener.port = taken.port }
        }
        #expect(error?.description == "cannot listen on 127.0.0.1:\(taken.port): Address already in use")
    }
}
