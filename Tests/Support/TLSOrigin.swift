import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTPS origin for tests: a throwaway CA and a leaf certificate for `DNS:localhost` only, made with the `openssl`
/// command, served by `openssl s_server -HTTP` on 127.0.0.1 (files in its directory are complete raw HTTP responses).
public final class TLSOrigin {
    public static let opensslPath: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    public let directory: String
    public let port: Int
    private let server: Process

    /// The CA certificate that signed the leaf, for `FetchConfiguration.trustedRootsPEMFile`.
    public var caFile: String { directory + "/ca.pem" }

    public init() throws {
        guard let openssl = TLSOrigin.opensslPath else { throw POSIXError(.ENOENT) }
        directory = NSTemporaryDirectory() + "postern-tls-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: directory + "/leaf.cnf", atomically: true, encoding: .utf8)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try TLSOrigin.run(
            openssl,
            ["req", "-x509"] + ec + [
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Postern Test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
            ], in: directory)
        try TLSOrigin.run(
            openssl, ["req"] + ec + ["-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=localhost"], in: directory
        )
        try TLSOrigin.run(
            openssl,
            [
                "x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                "leaf.pem",
                "-days", "2", "-extfile", "leaf.cnf",
            ], in: directory)
        port = try TLSOrigin.freePort()
        server = Process()
        server.executableURL = URL(fileURLWithPath: openssl)
        server.arguments = [
            "s_server", "-HTTP", "-accept", "127.0.0.1:\(port)", "-cert", "leaf.pem", "-key", "leaf.key",
        ]
        server.currentDirectoryURL = URL(fileURLWithPath: directory)
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        try waitUntilListening()
    }

    deinit {
        // SIGKILL: the child may inherit a signal mask that blocks SIGTERM from the test runner's threads.
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Serves `body` with status 200 and `contentType` at `/<path>` (directories made as needed).
    public func serve(_ path: String, body: String, contentType: String = "text/plain") throws {
        let response =
            "HTTP/1.0 200 OK\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        let file = URL(fileURLWithPath: directory + "/" + path)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try response.write(to: file, atomically: true, encoding: .utf8)
    }

    /// Runs `tool` with `arguments` in `directory`, its output discarded.
    /// - Throws: `POSIXError(.EIO)` when it exits with another status than 0.
    public static func run(_ tool: String, _ arguments: [String], in directory: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw POSIXError(.EIO) }
    }

    /// A port on 127.0.0.1 nothing is bound to, for `s_server`: drawn below the kernel's ephemeral range (32768 up),
    /// as Tests/postern_testkit/ports.py's are, since a port of that range released before `s_server` binds it can be
    /// taken by any of the suites' outbound connections meanwhile.
    private static func freePort() throws -> Int {
        for _ in 0..<100 {
            let candidate = Int.random(in: 16384..<32768)
            if onLoopback(candidate, { bind($0, $1, $2) }) { return candidate }
        }
        throw POSIXError(.EADDRINUSE)
    }

    private func waitUntilListening() throws {
        for _ in 0..<100 {
            if TLSOrigin.onLoopback(port, { connect($0, $1, $2) }) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw POSIXError(.ETIMEDOUT)
    }

    /// Whether `call` (bind or connect) of a new TCP socket to 127.0.0.1:`port` succeeded; the socket is closed.
    private static func onLoopback(_ port: Int, _ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                call(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
