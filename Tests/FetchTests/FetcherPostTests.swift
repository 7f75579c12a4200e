import Foundation
import OutboundSocket
import PosternTestSupport
import Testing

@testable import Fetch

@Suite("Fetcher.post against a local origin", .timeLimit(.minutes(1)))
struct FetcherPostTests {
    private func fetcher(allowPrivate: Bool = true) throws -> Fetcher {
        try Fetcher(
            configuration: FetchConfiguration(policy: AddressPolicy(allowPrivate: allowPrivate)), resolver: NoLookups())
    }

    @Test("a POST sends its method, headers and Content-Length, and returns a non-2xx answer with its body")
    func postReturnsAnyStatus() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.set("/api", status: 409, headers: ["Authorization: Bearer answer"], body: #"{"error":"taken"}"#)
        let response = try await fetcher().post(
            origin.url("/api"), headers: [("Authorization", "Bearer sent"), ("Content-Type", "application/json")],
            body: Array("{}".utf8))
        #expect(response.status == 409)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"taken"}"#)
        #expect(response.head["Authorization"] == "Bearer answer")
        let request = try #require(origin.receivedRequests.first)
        #expect(request.hasPrefix("POST /api HTTP/1.1\r\n"))
        #expect(request.contains("\r\nAuthorization: Bearer sent\r\n"))
        #expect(request.contains("\r\nContent-Length: 2\r\n"))
    }

    @Test("readingBody false answers with the status however large the body (webhooks); the default caps it")
    func statusWithoutBody() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.set("/hook", status: 200, body: String(repeating: "x", count: 64 * 1024))
        let response = try await fetcher().post(origin.url("/hook"), body: Array("{}".utf8), readingBody: false)
        #expect(response.status == 200 && response.body.isEmpty)
        await #expect(throws: FetchError.bodyTooLarge) { try await fetcher().post(origin.url("/hook")) }
    }

    @Test("a header with CR or LF is refused before anything is sent")
    func headerInjectionRefused() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        let fetcher = try fetcher()
        await #expect(throws: FetchError.invalidURL) {
            try await fetcher.post(origin.url("/api"), headers: [("X-A", "b\r\nX-Injected: c")])
        }
        #expect(origin.acceptedConnections == 0)
    }

    @Test("the address policy applies to POST too")
    func policyApplies() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        await expectNotAllowed { try await fetcher(allowPrivate: false).post(origin.url("/api")) }
        #expect(origin.acceptedConnections == 0)
    }

    /// Its Accept replaces the configured one.
    @Test("a GET with headers sends them, follows no redirect, answers any status")
    func getWithHeaders() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.set("/user", status: 401, body: #"{"message":"Bad credentials"}"#)
        origin.redirect("/moved", to: origin.url("/user"))
        let fetcher = try fetcher()
        let response = try await fetcher.get(
            origin.url("/user"), headers: [("Accept", "application/vnd.github+json"), ("Authorization", "Bearer t")])
        #expect(response.status == 401 && String(decoding: response.body, as: UTF8.self).contains("Bad credentials"))
        let request = try #require(origin.receivedRequests.first)
        #expect(request.hasPrefix("GET /user HTTP/1.1\r\n") && request.contains("\r\nAuthorization: Bearer t\r\n"))
        #expect(request.contains("\r\nAccept: application/vnd.github+json\r\n") && !request.contains("text/plain"))
        #expect(request.contains("\r\nUser-Agent: Postern-Fetch/1.0\r\n"))
        let moved = try await fetcher.get(origin.url("/moved"), headers: [("Authorization", "Bearer t")])
        #expect(moved.status == 302 && origin.receivedRequests.count == 2)
        #expect(origin.receivedRequests[1].contains("\r\nAccept: text/plain, */*;q=0.5\r\n"))
        await #expect(throws: FetchError.invalidURL) {
            try await fetcher.get(origin.url("/user"), headers: [("Authorization", "Bearer t\r\nX-Injected: c")])
        }
        await expectNotAllowed { try await self.fetcher(allowPrivate: false).get(origin.url("/user"), headers: []) }
        #expect(origin.receivedRequests.count == 2)
    }

    @Test("a POST's deadline runs from when a thread takes it, within startWithin of the call, else it is not sent")
    func deadlineFromThread() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.set("/slow", body: "ok", delay: 0.7)
        origin.set("/quick", body: "ok", delay: 0.5)
        var configuration = FetchConfiguration(policy: AddressPolicy(allowPrivate: true))
        configuration.concurrentFetches = 1
        configuration.totalTimeout = .seconds(1)
        let fetcher = try Fetcher(configuration: configuration, resolver: NoLookups())
        let slow = Task { try await fetcher.post(origin.url("/slow"), readingBody: false) }
        // The one thread is busy once the origin has the slow request.
        while origin.acceptedConnections == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let quick = try await fetcher.post(origin.url("/quick"), readingBody: false)
        #expect(quick.status == 200)
        #expect(try await slow.value.status == 200)
        #expect(origin.receivedRequests.count == 2)
        // One that could not start within `startWithin` is given up unsent.
        let again = Task { try await fetcher.post(origin.url("/slow"), readingBody: false) }
        while origin.acceptedConnections < 3 { try await Task.sleep(for: .milliseconds(5)) }
        await #expect(throws: FetchError.timedOut) {
            try await fetcher.post(origin.url("/quick"), readingBody: false, startWithin: .milliseconds(100))
        }
        #expect(try await again.value.status == 200)
        #expect(origin.receivedRequests.count == 3)
    }
}
