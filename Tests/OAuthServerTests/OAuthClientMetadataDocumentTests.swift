import Fetch
import HTTP1
import JSON
import OAuthServer
import OutboundSocket
import PosternTestSupport
import Synchronization
import Testing

/// Documents by URL, counting fetches: a stand-in for the real fetcher (whose address policy, redirect refusal and
/// size cap the Python client test drives over TLS).
final class DocumentServer: OAuthDocumentFetching {
    let documents = Mutex<[String: OAuthFetchedDocument]>([:])
    let fetches = Mutex(0)

    func set(_ url: String, _ json: String, cacheControl: String? = nil) {
        documents.withLock { $0[url] = OAuthFetchedDocument(body: Array(json.utf8), cacheControl: cacheControl) }
    }

    func document(at url: String) async -> OAuthFetchedDocument? {
        fetches.withLock { $0 += 1 }
        return documents.withLock { $0[url] }
    }
}

/// Documents fetched for real, over a socket, from a loopback HTTP origin standing in for the https URL's host
/// (the path is kept): the real fetcher, whose connections the origin counts.
struct LoopbackDocuments: OAuthDocumentFetching {
    let origin: TestOrigin
    let fetcher: Fetcher

    init(_ origin: TestOrigin) throws {
        self.origin = origin
        var configuration = FetchConfiguration(policy: AddressPolicy(allowPrivate: false, allowedHosts: ["127.0.0.1"]))
        configuration.maxRedirects = 0
        configuration.accept = "application/json"
        fetcher = try Fetcher(configuration: configuration, resolver: NoLookups())
    }

    func document(at url: String) async -> OAuthFetchedDocument? {
        let rest = url.dropFirst("https://".count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        return await fetcher.document(at: origin.url(String(rest[slash...])))
    }
}

@Suite("OAuth client ID metadata documents")
struct OAuthClientMetadataDocumentTests {
    static let url = "https://app.example/oauth/client.json"

    @Test("a document URL is https with a path, no query, fragment, user info or dot segments")
    func urls() {
        for good in [Self.url, "https://app.example:8443/c", "https://127.0.0.1:8443/client.json"] {
            #expect(OAuthClientMetadataDocument.isDocumentURL(good), "\(good)")
        }
        for bad in [
            "http://app.example/c", "https://app.example", "https://app.example/", "https://app.example/c?x=1",
            "https://app.example/c#f", "https://u@app.example/c", "https://app.example/a/../c", "https://app.example/./c",
            "registered-client-id",
        ] {
            #expect(!OAuthClientMetadataDocument.isDocumentURL(bad), "\(bad)")
        }
    }

    @Test("a document must name itself, carry no secret and use auth method none")
    func documents() throws {
        let configuration = OAuthConfiguration(issuer: issuer)
        func registration(_ json: String) throws(OAuthError) -> OAuthClientRegistration {
            try OAuthClientMetadataDocument.registration(url: Self.url, body: Array(json.utf8), configuration: configuration)
        }
        let good = try registration(
            #"{"client_id":"\#(Self.url)","client_name":"App","redirect_uris":["https://app.example/cb"],"extra":1}"#)
        #expect(good.authMethod == .none)
        #expect(good.clientName == "App")
        for bad in [
            #"{"client_id":"https://other.example/c","redirect_uris":["https://app.example/cb"]}"#,
            #"{"redirect_uris":["https://app.example/cb"]}"#,
            #"{"client_id":"\#(Self.url)","redirect_uris":["https://app.example/cb"],"client_secret":"s"}"#,
            #"{"client_id":"\#(Self.url)","redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"client_secret_post"}"#,
            #"{"client_id":"\#(Self.url)","redirect_uris":["http://app.example/cb"]}"#,
            #"{"client_id":"\#(Self.url)"}"#,
            "[]", "not json",
        ] {
            #expect(throws: OAuthError.self, "\(bad)") { try registration(bad) }
            #expect((try? registration(bad)) == nil)
        }
        #expect(OAuthClientMetadataDocument.lifetime(cacheControl: nil) == 3_600)
        #expect(OAuthClientMetadataDocument.lifetime(cacheControl: "public, max-age=60") == 300)
        #expect(OAuthClientMetadataDocument.lifetime(cacheControl: "max-age=7200") == 7_200)
        #expect(OAuthClientMetadataDocument.lifetime(cacheControl: "max-age=999999") == 86_400)
        #expect(OAuthClientMetadataDocument.lifetime(cacheControl: "no-store") == 300)
    }

    @Test(
        "an https client_id is fetched once, cached per Cache-Control, shown with its host, and works end to end",
        arguments: StorageBackend.allCases)
    func flow(_ backend: StorageBackend) async throws {
        let server = DocumentServer()
        server.set(
            Self.url, #"{"client_id":"\#(Self.url)","client_name":"Doc App","redirect_uris":["\#(callback)"]}"#,
            cacheControl: "max-age=600")
        let harness = try OAuthHarness(backend, documents: server)
        let metadata = try #require(OAuthHarness.json(await harness.send(.GET, "/.well-known/oauth-authorization-server")))
        #expect(metadata["client_id_metadata_document_supported"] == .bool(true))
        let owner = try await harness.owner()
        let (page, csrf, ticket) = try await OAuthAuthorizeTests.consentPage(
            harness, OAuthAuthorizeTests.query(Self.url))
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("Doc App"))
        #expect(html.contains("id=\"client-host\">app.example<"))
        let approved = await harness.send(
            .POST, "/oauth/consent",
            form: [
                ("csrf_token", csrf), ("request", ticket), ("scope", "mail.read"), ("account_id", owner.inbox),
                ("reach", "all"), ("decision", "approve"),
            ])
        let code = try #require(OAuthHarness.location(approved)["code"])
        let token = await harness.exchange(code, clientID: Self.url, verifier: OAuthAuthorizeTests.verifier)
        #expect(token.status == .ok)
        #expect(server.fetches.withLock { $0 } == 1)
        harness.clock.advance(600)
        _ = await harness.send(.GET, "/oauth/authorize?" + OAuthAuthorizeTests.query(Self.url))
        #expect(server.fetches.withLock { $0 } == 2)
    }

    @Test(
        "concurrent authorize requests for one document URL share one fetch, counted at a loopback origin",
        arguments: StorageBackend.allCases)
    func oneFetchInFlight(_ backend: StorageBackend) async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        // The answer waits a little so that the requests below overlap it; the count does not depend on it.
        origin.set(
            "/oauth/client.json", headers: ["Content-Type: application/json", "Cache-Control: max-age=600"],
            body: #"{"client_id":"\#(Self.url)","client_name":"Doc App","redirect_uris":["\#(callback)"]}"#,
            delay: 0.5)
        let harness = try OAuthHarness(backend, documents: try LoopbackDocuments(origin))
        let target = "/oauth/authorize?" + OAuthAuthorizeTests.query(Self.url)
        let router = harness.router
        let statuses = await withTaskGroup(of: HTTPStatus.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var browser = RouteBrowser(requestID: "cimd-flight")
                    return await browser.send(.GET, target, form: nil, json: nil, headers: [], through: router).status
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        // Each found the client (an unknown one is the 400 page) and goes on to sign in.
        #expect(statuses == Array(repeating: .seeOther, count: 8))
        #expect(origin.acceptedConnections == 1)
        #expect(origin.receivedRequests.count == 1)
    }

    @Test(
        "the consent page says so when the redirect URI's host differs from the document URL's host",
        arguments: StorageBackend.allCases)
    func hostMismatch(_ backend: StorageBackend) async throws {
        let server = DocumentServer()
        let elsewhere = "https://other.example/cb"
        server.set(Self.url, #"{"client_id":"\#(Self.url)","redirect_uris":["\#(callback)","\#(elsewhere)"]}"#)
        let harness = try OAuthHarness(backend, documents: server)
        _ = try await harness.owner()
        let (page, _, _) = try await OAuthAuthorizeTests.consentPage(
            harness, OAuthAuthorizeTests.query(Self.url, replacing: ["redirect_uri": elsewhere]))
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("id=\"redirect-host-differs\""))
        #expect(html.contains("published at <strong>app.example</strong> but sends your answer to another host"))
        #expect(html.contains("<strong>other.example</strong>"))
        let (same, sameURL) = ("https://app.example/cb", "https://app.example/same.json")
        server.set(sameURL, #"{"client_id":"\#(sameURL)","redirect_uris":["\#(same)"]}"#)
        let samePage = await harness.send(
            .GET, "/oauth/authorize?" + OAuthAuthorizeTests.query(sameURL, replacing: ["redirect_uri": same]))
        #expect(samePage.status == .ok)
        #expect(!String(decoding: samePage.body, as: UTF8.self).contains("redirect-host-differs"))
        let registered = try await harness.registerClient(redirect: elsewhere)
        let plain = await harness.send(
            .GET,
            "/oauth/authorize?" + OAuthAuthorizeTests.query(registered.id, replacing: ["redirect_uri": elsewhere]))
        #expect(plain.status == .ok)
        #expect(!String(decoding: plain.body, as: UTF8.self).contains("redirect-host-differs"))
    }

    @Test(
        "a document that is missing or refused makes an unknown client: 400 page, invalid_client",
        arguments: StorageBackend.allCases)
    func refused(_ backend: StorageBackend) async throws {
        let server = DocumentServer()
        let missing = "https://app.example/missing.json"
        let liar = "https://app.example/liar.json"
        server.set(liar, #"{"client_id":"https://evil.example/c","redirect_uris":["\#(callback)"]}"#)
        let harness = try OAuthHarness(backend, documents: server)
        for url in [missing, liar] {
            let page = await harness.send(.GET, "/oauth/authorize?" + OAuthAuthorizeTests.query(url))
            #expect(page.status == .badRequest)
            #expect(page.headers["Location"] == nil)
            let token = await harness.refresh("x", clientID: url)
            #expect(OAuthHarness.error(token) == "invalid_client")
        }
        let off = try OAuthHarness(backend)
        let metadata = try #require(OAuthHarness.json(await off.send(.GET, "/.well-known/oauth-authorization-server")))
        #expect(metadata["client_id_metadata_document_supported"] == .bool(false))
        #expect(await off.send(.GET, "/oauth/authorize?" + OAuthAuthorizeTests.query(Self.url)).status == .badRequest)
    }
}
