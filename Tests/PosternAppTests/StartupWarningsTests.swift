import PosternTestSupport
import Testing

@testable import PosternApp

/// The warnings a start logs for a configuration that runs but is unsafe where it is reached (issue 49, items 2 and
/// 6): the test profile on an address beyond loopback, and open owner sign-up as a source of outbound mail.
@Suite("Start-up warnings")
struct StartupWarningsTests {
    @Test(
        "the test profile listening beyond loopback is named in a warning at start; on loopback it is not",
        arguments: StorageBackend.allCases)
    func testProfileBeyondLoopback(_ backend: StorageBackend) async throws {
        let exposed = DataDirectoryTests.Capture()
        let server = try await TestServer.start(
            backend, {
                $0.profile = .test
                $0.listener.host = "0.0.0.0"
            }, logger: DataDirectoryTests.logger(exposed))
        await server.stop()
        #expect(exposed.text.contains("the test profile"))
        #expect(exposed.text.contains("0.0.0.0"))

        let quiet = DataDirectoryTests.Capture()
        let local = try await TestServer.start(backend, { $0.profile = .test }, logger: DataDirectoryTests.logger(quiet))
        await local.stop()
        #expect(!quiet.text.contains("the test profile"))
    }

    @Test("loopback is 127.0.0.0/8, ::1 (also IPv4-mapped) and localhost; any other address or name is not",
          arguments: [
              ("127.0.0.1", true), ("127.8.9.10", true), ("::1", true), ("[::1]", true), ("::ffff:127.0.0.1", true),
              ("localhost", true), ("0.0.0.0", false), ("::", false), ("192.168.1.4", false),
              ("postern.example", false),
          ])
    func loopback(host: String, expected: Bool) {
        #expect(StartupWarning.isLoopback(host) == expected)
    }

    @Test("the test profile is named once per address beyond loopback (HTTP's and SMTP's); the default profile never")
    func testProfileRule() {
        var c = PosternConfiguration()
        c.listener.host = "0.0.0.0"
        #expect(StartupWarning.warnings(for: c).isEmpty, "the default profile keeps its abuse controls")
        c.profile = .test
        c.smtp.host = "0.0.0.0"
        #expect(StartupWarning.warnings(for: c) == [.testProfileReachable(host: "0.0.0.0")])
        c.listener.host = "127.0.0.1"
        c.smtp.host = "10.0.0.5"
        #expect(StartupWarning.warnings(for: c) == [.testProfileReachable(host: "10.0.0.5")])
    }

    @Test("open owner sign-up with delivery on and POSTERN_OUTBOUND_SENDERS=owned is named; each one apart is not")
    func openSignUpRule() {
        var c = PosternConfiguration()
        c.owners.signUpOpen = true
        #expect(StartupWarning.warnings(for: c).isEmpty, "delivery off: nothing leaves")
        c.outbound.mode = .relay
        #expect(StartupWarning.warnings(for: c) == [.openSignUpWithOutbound])
        #expect(StartupWarning.openSignUpWithOutbound.message.contains("postern owner approve --email E"))
        c.outboundQueue.senders = .all
        #expect(StartupWarning.warnings(for: c).isEmpty, "all: every sender may anyway, as documented")
        c.outboundQueue.senders = .owned
        c.owners.signUpOpen = false
        #expect(StartupWarning.warnings(for: c).isEmpty)
    }
}
