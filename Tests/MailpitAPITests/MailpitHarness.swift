import Base64Coding
import Fetch
import Foundation
import Logging
import MIME
import MailStore
import PosternTestSupport
import ServerKit
import Storage

@testable import MailpitAPI

/// The Mailpit API over a migrated database of one backend, its routes called as the server calls them: the
/// operator's token, and Pro users' sandboxes through a table of API tokens (the port the composition root fills
/// from `MailSandbox`).
final class MailpitHarness: @unchecked Sendable {
    static let operatorToken = "operator-token-0123456789abcdef0123456789"
    let test: TestDatabase
    let store: MailStore
    let api: MailpitAPI
    let client: RouteClient
    let sandboxes: SandboxTable

    init(
        _ backend: StorageBackend, sandboxes: [String: MailpitSandbox] = [:], basePath: String = "/mailpit",
        links: any URLFetching = LinkTable(answers: [:]), chaos: (any MailpitChaosRules)? = nil,
        outage: InjectedOutage? = nil
    ) throws {
        let test = try backend.makeDatabase(logger: Logger(label: "mailpit-tests"))
        self.test = test
        store = MailStore(
            database: outage.map { CountingDatabase(test.database, beforeStatement: $0.beforeStatement) }
                ?? test.database)
        var configuration = MailpitConfiguration()
        configuration.basePath = basePath
        configuration.operatorToken = Self.operatorToken
        self.sandboxes = SandboxTable(store: store, tokens: sandboxes)
        api = MailpitAPI(
            configuration: configuration, mail: store, sandboxes: self.sandboxes,
            receiving: DirectReceiving(store: store), links: links, chaos: chaos, clock: { 1_800_000_000 },
            onUnexpectedError: nil)
        var router = ContextRouter()
        api.register(on: &router)
        client = RouteClient(router: router, requestID: "mailpit-test")
    }

    /// `GET`/`PUT`/... `path` under the base path with the operator's token as a bearer.
    func call(
        _ method: String, _ path: String, token: String? = MailpitHarness.operatorToken, json: Any? = nil,
        form: String? = nil, body: [UInt8]? = nil
    ) async throws -> TestResponse {
        var headers: [(String, String)] = token.map { [("Authorization", "Bearer " + $0)] } ?? []
        var bytes = body ?? []
        if let json {
            bytes = [UInt8](try JSONSerialization.data(withJSONObject: json))
            headers.append(("Content-Type", "application/json"))
        } else if let form {
            bytes = Array(form.utf8)
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        }
        return try await client.request(method, "/mailpit" + path, headers: headers, body: bytes)
    }

    /// Stores `raw` for `address`, received `now`; returns its id.
    @discardableResult
    func deliver(_ raw: String, to address: String, now: Int64 = 1_800_000_000, bcc: [MailAddress] = []) async throws
        -> String
    {
        let bytes = Array(raw.utf8)
        var message = NewMailMessage(try MIMEParser.parse(bytes), envelopeFrom: "sender@example.com", raw: bytes)
        message.bcc = bcc
        return try await store.deliver(
            message, to: [.init(address: address, quota: 100_000_000)], folder: .inbox, now: now)[0]
    }

    /// The `ID`s of a `MessagesSummary` answer, in order.
    static func ids(_ response: TestResponse) throws -> [String] {
        let messages = try response.json()["messages"] as? [[String: Any]] ?? []
        return messages.compactMap { $0["ID"] as? String }
    }
}

/// Pro users' sandboxes by API token, as `MailSandbox` answers for them; captures go straight into the store.
struct SandboxTable: MailpitSandboxes {
    let store: MailStore
    let tokens: [String: MailpitSandbox]

    func sandbox(apiToken token: String) async throws -> MailpitSandbox? { tokens[token] }

    func capture(raw: [UInt8], mailFrom: String, recipients: [String], in sandbox: MailpitSandbox) async throws
        -> String
    {
        try await store.deliver(
            NewMailMessage(try MIMEParser.parse(raw), envelopeFrom: mailFrom, raw: raw),
            to: [.init(address: sandbox.address, quota: 100_000_000, envelopeTo: recipients)], folder: .inbox,
            now: 1_800_000_000)[0]
    }
}

/// The operator's `send` into the store: every recipient ending in `.localhost` is local, as the catch-all would
/// take them.
struct DirectReceiving: MailpitReceiving {
    let store: MailStore

    func receive(raw: [UInt8], mailFrom: String, recipients: [String]) async throws -> [String] {
        let local = recipients.filter { $0.hasSuffix(".localhost") }
        guard !local.isEmpty else { throw MailpitReceivingError.noLocalRecipient }
        return try await store.deliver(
            NewMailMessage(try MIMEParser.parse(raw), envelopeFrom: mailFrom, raw: raw),
            to: local.map { .init(address: $0, quota: 100_000_000, envelopeTo: [$0]) }, folder: .inbox,
            now: 1_800_000_000)
    }
}

/// The outbound fetcher's refusals by URL, as the real one throws them; a URL not in the table did not resolve.
/// (A 2xx answer is the end-to-end test's: `FetchResponse` is made only by the real fetcher.)
struct LinkTable: URLFetching {
    let answers: [String: FetchError]

    func fetch(_ url: String) async throws(FetchError) -> FetchResponse {
        throw answers[url] ?? .resolutionFailed
    }
}
