import Foundation
import Glibc
import PosternTestSupport
import Testing

/// `postern serve` started under `ulimit -n 256` and offered 300 connections at once: while it has no
/// descriptor left it must sleep rather than spin on its listener, and once the clients go it must serve
/// as before. (`DescriptorExhaustionTests` covers the same in-process; this is the real executable.)
@Suite("postern serve out of file descriptors", .timeLimit(.minutes(1)))
struct ServeDescriptorLimitTests {
    static let openFileLimit = 256
    static let clientCount = 300

    @Test(
        "ulimit -n 256, 300 connections: no busy loop while saturated, full service once they close",
        .enabled(if: Soak.isEnabled, "timed (CPU in 3 s): make soak"))
    func saturatedByConnections() async throws {
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("fdlimit-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        // Blocking sockets, polls and sleeps: off the cooperative pool.
        let report = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try Self.run(dataDirectory: dataDirectory) })
            }
        }
        print("postern under ulimit -n \(Self.openFileLimit): \(report)")
    }

    struct Report: CustomStringConvertible {
        var answered = 0
        var closedUnanswered = 0
        var waiting = 0
        var cpuSecondsSaturated = 0.0
        var saturatedSeconds = 0.0
        var answeredAfter = 0
        var description: String {
            "of \(ServeDescriptorLimitTests.clientCount) connections answered=\(answered) "
                + "closed unanswered=\(closedUnanswered) still waiting=\(waiting); server CPU while saturated "
                + "\(String(format: "%.2f", cpuSecondsSaturated)) s in \(String(format: "%.1f", saturatedSeconds)) s; "
                + "after they closed \(answeredAfter)/200 new connections answered"
        }
    }

    static func run(dataDirectory: String) throws -> Report {
        let server = try LimitedServer(dataDirectory: dataDirectory, openFileLimit: openFileLimit)
        defer { server.terminate() }
        #expect(server.openFileLimit() == openFileLimit, "the limit did not reach the server")
        var report = Report()
        let idleDescriptors = server.openDescriptorCount()

        // 300 connections, each sending one request and staying open (keep-alive).
        let clients = RawClients(port: server.port, count: clientCount)
        defer { clients.closeAll() }
        let request = Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
        clients.sendAll(request)
        let first = clients.collect(seconds: 3)
        report.answered = first.answered
        report.closedUnanswered = first.closed
        report.waiting = first.waiting
        // The limit must bite: some connections could not be served, yet the server used what it had.
        #expect(first.answered >= 150, "\(report)")
        #expect(first.answered < clientCount, "every connection was served: the limit did not bite. \(report)")
        #expect(server.isRunning, "postern died while out of descriptors: \(server.output())")

        // Saturated: every descriptor in use, clients still queued or being turned away.
        let clockTicks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let before = try server.cpuTicks()
        let start = Date()
        Thread.sleep(forTimeInterval: 3)
        let used = Double(try server.cpuTicks() - before) / clockTicks
        report.cpuSecondsSaturated = used
        report.saturatedSeconds = Date().timeIntervalSince(start)
        #expect(used < 0.3, "the server used \(used) s of CPU in 3 s while out of descriptors. \(report)")
        #expect(server.isRunning, "postern died while out of descriptors: \(server.output())")

        // The clients go; service comes back at once and in full.
        clients.closeAll()
        let deadline = Date().addingTimeInterval(10)
        var healthy = false
        while !healthy, Date() < deadline {
            let probe = try? TestHTTPClient(port: server.port).requestBlocking("GET", "/healthz", headers: [], body: [])
            healthy = probe?.status == 200
            if !healthy { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(healthy, "no answer within 10 s after the connections closed: \(server.output())")
        // The 200 below fit only once the server has closed its side of the 300: wait for that, not for time.
        while server.openDescriptorCount() > idleDescriptors + 8, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let again = RawClients(port: server.port, count: 200)
        defer { again.closeAll() }
        again.sendAll(request)
        let second = again.collect(seconds: 10)
        report.answeredAfter = second.answered
        #expect(second.answered == 200, "after recovery: \(report)")
        again.closeAll()
        let status = server.stop()
        #expect(status == 0, "exit \(status) on SIGTERM: \(server.output())")
        return report
    }
}

/// The built `postern serve` started through `sh -c 'ulimit -n N; exec ...'` (the same process id).
private final class LimitedServer {
    private let child: ServeChild

    init(dataDirectory: String, openFileLimit: Int) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["POSTERN_LOG_LEVEL"] = "notice"
        environment["POSTERN_SMTP_PORT"] = "0"
        environment["POSTERN_SANDBOX_SMTP_PORT"] = "off"
        child = try ServeChild(
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: [
                "-c", "ulimit -n \(openFileLimit) && exec \"$0\" \"$@\"", ServeProcessTests.executable.path,
                "serve", "--config", ServeProcessTests.repository.appendingPathComponent("config/postern.env").path,
                "--port", "0", "--data-dir", dataDirectory,
            ],
            environment: environment)
    }

    var port: Int { child.port }

    var isRunning: Bool { child.isRunning }

    func output() -> String { child.output() }

    /// The soft open-files limit the process runs with, from /proc/PID/limits.
    func openFileLimit() -> Int? {
        guard
            let limits = try? String(
                contentsOfFile: "/proc/\(child.process.processIdentifier)/limits", encoding: .utf8),
            let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") })
        else { return nil }
        return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.flatMap { Int($0) }
    }

    /// How many descriptors the process holds open, from /proc/PID/fd.
    func openDescriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(child.process.processIdentifier)/fd").count) ?? 0
    }

    /// utime + stime in clock ticks, fields 14 and 15 of /proc/PID/stat.
    func cpuTicks() throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(child.process.processIdentifier)/stat", encoding: .utf8)
        guard let close = stat.lastIndex(of: ")") else { throw LimitedServerError.stat(stat) }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw LimitedServerError.stat(stat)
        }
        return user + system
    }

    /// SIGTERM and the exit status.
    func stop() -> Int32 { child.stop() }

    func terminate() { child.terminate() }
}

private enum LimitedServerError: Error {
    case stat(String)
}

/// Many plain client sockets, driven with poll(2): who got an answer, who was closed, who still waits.
private final class RawClients {
    private var fds: [Int32] = []
    private var received: [[UInt8]]

    init(port: Int, count: Int) {
        received = Array(repeating: [], count: count)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            // The listener's backlog takes the connection even when the server cannot accept it.
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            fds.append(fd)
        }
    }

    func sendAll(_ bytes: [UInt8]) {
        for fd in fds { _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
    }

    /// Reads for `seconds`: a connection counts as answered once a whole `HTTP/1.1 200` head arrived,
    /// closed when it ended (EOF or reset) without one, waiting otherwise.
    func collect(seconds: Double) -> (answered: Int, closed: Int, waiting: Int) {
        var done = Array(repeating: false, count: fds.count)
        var closed = Array(repeating: false, count: fds.count)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, done.contains(false) {
            var polls = fds.indices.filter { !done[$0] }.map { pollfd(fd: fds[$0], events: Int16(POLLIN), revents: 0) }
            let indices = fds.indices.filter { !done[$0] }
            guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            for (slot, index) in indices.enumerated() where polls[slot].revents != 0 {
                let count = chunk.withUnsafeMutableBytes {
                    recv(fds[index], $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                }
                if count > 0 {
                    received[index] += chunk[..<count]
                    if Self.answered(received[index]) { done[index] = true }
                } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                    done[index] = true
                    closed[index] = true
                }
            }
        }
        let answered = received.filter(Self.answered).count
        let closedCount = fds.indices.filter { closed[$0] && !Self.answered(received[$0]) }.count
        return (answered, closedCount, fds.count - answered - closedCount)
    }

    private static func answered(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: Array("HTTP/1.1 200".utf8)) && bytes.firstRange(of: [13, 10, 13, 10]) != nil
    }

    func closeAll() {
        for fd in fds { close(fd) }
        fds = []
    }
}
