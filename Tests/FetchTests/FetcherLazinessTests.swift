import Foundation
import OutboundSocket
import PosternTestSupport
import Testing

@testable import Fetch

@Suite("Fetcher start-up costs nothing until the first fetch")
struct FetcherLazinessTests {
    @Test("a new fetcher has started no I/O thread; one fetch starts one")
    func threadsStartOnDemand() async throws {
        let fetcher = try Fetcher(
            configuration: FetchConfiguration(policy: AddressPolicy(allowPrivate: false)), resolver: NoLookups())
        #expect(fetcher.startedThreads == 0)
        // Refused by the address policy before any connection, but it runs on an I/O thread.
        await expectNotAllowed { try await fetcher.fetch("http://127.0.0.1:9/x") }
        #expect(fetcher.startedThreads == 1)
    }

    @Test("a trusted-roots file that cannot be read still refuses the fetcher at creation")
    func unreadableRootsRefusedAtOnce() {
        var configuration = FetchConfiguration()
        configuration.trustedRootsPEMFile = "/nonexistent/postern-roots.pem"
        #expect(throws: FetchError.tlsFailed) { try Fetcher(configuration: configuration, resolver: NoLookups()) }
    }
}
