import Foundation
import PosternTestSupport
import Testing

@testable import PosternApp

@Suite("wall clock")
struct WallClockTests {
    @Test("seconds are the milliseconds floored, before 1970 too; a clock of seconds reads whole seconds")
    func conversions() {
        #expect(WallClock(milliseconds: { 1_999 }).seconds == 1)
        #expect(WallClock(milliseconds: { -1 }).seconds == -1)
        #expect(WallClock(milliseconds: { -1_000 }).seconds == -1)
        #expect(WallClock(seconds: { 7 }).milliseconds == 7_000)
        #expect(WallClock(seconds: { 7 }).secondsReader() == 7)
        #expect(WallClock(milliseconds: { 42 }).millisecondsReader() == 42)
    }

    @Test("the system clock reads what Foundation reads")
    func system() {
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let read = WallClock.system.milliseconds
        let after = Int64(Date().timeIntervalSince1970 * 1000)
        #expect((before...after + 1).contains(read))
    }

    @Test("the runtime's injected clock reaches the HTTP Date header", arguments: StorageBackend.allCases)
    func reachesTheEdge(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend, clock: { 1_800_000_000 }, services: .http)
        defer { Task { await server.stop() } }
        let response = try await server.client().request("GET", "/healthz")
        #expect(response.header("Date") == "Fri, 15 Jan 2027 08:00:00 GMT")
    }
}
