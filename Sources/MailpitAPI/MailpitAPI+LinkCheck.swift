import Fetch
import HTTP1
import JSON
import MIME
import MailStore

/// `GET /api/v1/message/{ID}/link-check` (`internal/linkcheck`): each web link of the message fetched through the
/// server's outbound fetcher, so its address policy (`POSTERN_OUTBOUND_*`) decides what may be reached, as for
/// webhooks and remote hashes.
extension MailpitAPI {
    /// `LinkCheckResponse`: `{"Errors": n, "Links": [{"URL", "StatusCode", "Status"}]}` for the message's first
    /// ``MailpitConfiguration/maximumLinkChecks`` links (text part, then HTML). A link answered 2xx (after the
    /// fetcher's vetted redirects: `follow` is not read) is its status and `OK`; another status is that status, an
    /// error; a link the fetcher refused or could not reach is status 0 with the reason, an error.
    func linkCheck(_ call: MailpitCall) async throws -> HTTPResponse {
        let id = try await messageID(call)
        guard let record = try await mail.record(in: call.scope, id: id) else { throw MailpitRefusal.notFound }
        let urls = Array(
            MessageLinks.find(text: record.textBody, html: record.htmlBody).prefix(configuration.maximumLinkChecks))
        let results = await check(urls)
        let errors = results.filter { !(200..<300).contains($0.status) }.count
        return Self.json(
            .object([
                ("Errors", .int(Int64(errors))),
                (
                    "Links",
                    .array(
                        results.map {
                            .object([
                                ("URL", .string($0.url)), ("StatusCode", .int(Int64($0.status))),
                                ("Status", .string($0.text)),
                            ])
                        })
                ),
            ]))
    }

    /// One link's outcome: the HTTP status (0 when there was none) and its text.
    struct LinkOutcome: Sendable {
        let url: String
        let status: Int
        let text: String
    }

    /// What fetching `url` through `links` came to.
    static func outcome(of url: String, through links: any URLFetching) async -> LinkOutcome {
        let result: Result<FetchResponse, FetchError>
        do throws(FetchError) {
            result = .success(try await links.fetch(url))
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let response): return LinkOutcome(url: url, status: response.status, text: "OK")
        case .failure(.badStatus(let status)):
            return LinkOutcome(url: url, status: status, text: HTTPStatus(code: status).reason)
        case .failure(let error): return LinkOutcome(url: url, status: 0, text: error.description)
        }
    }

    /// Each of `urls` fetched, at most ``MailpitConfiguration/concurrentLinkChecks`` at once; in `urls`' order.
    func check(_ urls: [String]) async -> [LinkOutcome] {
        await withTaskGroup(of: (Int, LinkOutcome).self) { group in
            var outcomes = [LinkOutcome?](repeating: nil, count: urls.count)
            var next = 0
            func start() {
                guard next < urls.count else { return }
                let (index, url) = (next, urls[next])
                next += 1
                group.addTask { [links] in (index, await Self.outcome(of: url, through: links)) }
            }
            for _ in 0..<min(configuration.concurrentLinkChecks, urls.count) { start() }
            for await (index, outcome) in group {
                outcomes[index] = outcome
                start()
            }
            return outcomes.compactMap { $0 }
        }
    }
}
