import Foundation
import PosternTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The end-to-end tests' HTTP client says who ended a read: its own receive timeout (`timedOut`, the harness gave up)
/// or the server (`closed`). Both used to be `closed`, so a busy machine's slow answer read as a server that hung up
/// (issue 67: `JMAPResourceBudgetTests`' doubling echoes, "closed" after 42 s).
@Suite("The end-to-end tests' HTTP client")
struct TestHTTPClientTests {
    @Test("a server that never answers: timedOut after the client's receive timeout; one that closes: closed")
    func timeoutIsNotClose() async throws {
        let (listener, port) = try LoopbackListener.open()
        defer { close(listener) }
        // The kernel completes the handshake from the backlog; nobody answers.
        let silent = try TestHTTPClient(port: port, receiveTimeout: 1)
        let waited = await #expect(throws: TestClientError.self) { _ = try await silent.request("GET", "/") }
        let timedOut = waited.map { if case .timedOut(seconds: 1) = $0 { true } else { false } }
        #expect(timedOut == true, "\(String(describing: waited))")

        let hungUp = try TestHTTPClient(port: port, receiveTimeout: 30)
        for _ in 0..<2 {  // the silent connection first, then this one
            let accepted = accept(listener, nil, nil)
            try #require(accepted >= 0)
            close(accepted)
        }
        let ended = await #expect(throws: TestClientError.self) { _ = try await hungUp.request("GET", "/") }
        #expect(ended.map { if case .closed = $0 { true } else { false } } == true, "\(String(describing: ended))")
    }
}
