import Foundation
import Glibc
import PosternTestSupport
import Testing

@testable import HTTPServer

@Suite("HTTPServer out of file descriptors", .timeLimit(.minutes(1)))
struct DescriptorExhaustionTests {
    @Test(
        "EMFILE: waiting clients are closed, accept pauses instead of spinning, and service resumes",
        .enabled(if: Soak.isEnabled, "timed (CPU in 0.5 s): make soak"))
    func descriptorExhaustion() async {
        // In a child process: the test lowers the open-files limit, which would disturb other tests.
        // A failed check exits 0 after writing "FAIL: ..." so that its message reaches the parent: an exit
        // test that does not meet its condition returns no result, and with it no output.
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            func fail(_ message: String) -> Never {
                FileHandle.standardError.write(Data(("FAIL: " + message + "\n").utf8))
                exit(0)
            }
            guard let (server, port) = try? startServer() else { fail("server did not start") }
            // Unconnected client sockets made while descriptors are plentiful.
            var clients: [Int32] = []
            for _ in 0..<8 { clients.append(socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)) }
            // Now leave no descriptor free: the server's accept will fail with EMFILE.
            let highest = clients.max()!
            var limit = rlimit()
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
            let original = limit
            limit.rlim_cur = rlim_t(highest + 1)
            guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { fail("setrlimit") }
            // Fill every lower descriptor left free by the process's earlier life too, so that no accept can
            // succeed except through the server's reserve descriptor.
            var fillers: [Int32] = []
            while true {
                let fd = open("/dev/null", O_RDONLY)
                if fd < 0 { break }
                fillers.append(fd)
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            for fd in clients {
                var timeout = timeval(tv_sec: 10, tv_usec: 0)  // generous: CI machines are shared
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                guard connected == 0 else { fail("connect errno \(errno)") }
            }
            // Each waiting client is accepted through the reserve descriptor and closed at once.
            var byte: UInt8 = 0
            let read = recv(clients[0], &byte, 1, 0)
            let code = errno
            guard read == 0 || (read == -1 && code != EAGAIN && code != EWOULDBLOCK) else {
                fail("expected the first client to be closed, got read \(read) errno \(code)")
            }
            // While descriptors stay exhausted the server must not spin on the listener.
            var before = rusage()
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &before)
            usleep(500_000)
            var after = rusage()
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &after)
            func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
            let cpu =
                seconds(after.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_utime)
                - seconds(before.ru_stime)
            guard cpu < 0.25 else { fail("server used \(cpu) s of CPU in 0.5 s while out of descriptors") }
            // Descriptors come back: a new client is served.
            for fd in clients + fillers { close(fd) }
            var restored = original
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &restored)
            usleep(300_000)
            guard let client = try? TestClient(port: port), let response = try? client.get("/hello"),
                response.status == 200
            else { fail("not served after descriptors came back") }
            _ = server
            exit(0)
        }
        if let result {
            let said = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(!said.contains("FAIL: "), "child said: \(said)")
        }
    }
}
