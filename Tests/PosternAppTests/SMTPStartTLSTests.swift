import Foundation
import PosternTestSupport
import Testing

@testable import PosternApp

/// STARTTLS on the main SMTP listener, which offers it only when the operator names a certificate, and the settings.
@Suite("SMTP STARTTLS settings")
struct SMTPStartTLSTests {
    /// A self-signed pair written with the openssl command into `directory`: (certificate, key) paths.
    static func certificate(in directory: String) throws -> (String, String) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let (certificate, key) = (directory + "/cert.pem", directory + "/key.pem")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
            "-out", certificate, "-subj", "/CN=localhost", "-days", "1",
        ]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (certificate, key)
    }

    @Test(
        "with POSTERN_SMTP_TLS_CERT/KEY the main listener offers STARTTLS, and mail still arrives over it",
        arguments: StorageBackend.allCases)
    func mainListener(_ backend: StorageBackend) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("postern-tls-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (certificate, key) = try Self.certificate(in: directory)
        let server = try await TestServer.start(backend) {
            $0.smtp.tlsCertificate = certificate
            $0.smtp.tlsKey = key
        }
        defer { Task { await server.stop() } }
        let port = try #require(server.runtime.smtpListenAddress?.split(separator: ":").last.flatMap { Int($0) })
        let script = """
            import smtplib, ssl, sys
            with smtplib.SMTP("127.0.0.1", int(sys.argv[1]), timeout=120) as s:
                s.ehlo()
                offered = s.has_extn("starttls")
                s.starttls(context=ssl._create_unverified_context())
                s.ehlo()
                print(offered, s.has_extn("starttls"), s.has_extn("auth"), s.docmd("RCPT", "TO:<x@example.org>")[0],
                      s.mail("a@example.net")[0], s.rcpt("someone@example.org")[0])
            """
        #expect(try await PythonScript.snippet(script, arguments: [String(port)], input: "") == "True False False 503 250 550")
        let plain = try await TestServer.start(backend)
        defer { Task { await plain.stop() } }
        let plainPort = try #require(plain.runtime.smtpListenAddress?.split(separator: ":").last.flatMap { Int($0) })
        let offered = """
            import smtplib, sys
            with smtplib.SMTP("127.0.0.1", int(sys.argv[1]), timeout=120) as s:
                s.ehlo()
                print(s.has_extn("starttls"), s.docmd("STARTTLS")[0])
            """
        #expect(try await PythonScript.snippet(offered, arguments: [String(plainPort)], input: "") == "False 502")
    }

    @Test(
        "the certificate and key are set together, a file that cannot be loaded stops the start, ports are checked",
        arguments: StorageBackend.allCases)
    func settings(_ backend: StorageBackend) async throws {
        func load(_ environment: [String: String]) async throws -> PosternConfiguration {
            try await ConfigurationLoader.load(environment: environment, defaultPath: "/nonexistent/config/postern.env")
        }
        await #expect(throws: ConfigurationError.self) { try await load(["POSTERN_SMTP_TLS_CERT": "/tmp/c.pem"]) }
        await #expect(throws: ConfigurationError.self) { try await load(["POSTERN_SANDBOX_SMTP_PORT": "70000"]) }
        await #expect(throws: ConfigurationError.self) {
            try await load(["POSTERN_SANDBOX_SMTP_PLAINTEXT_AUTH": "yes"])
        }
        #expect(try await load(["POSTERN_SANDBOX_SMTP_PORT": "off"]).sandbox.smtpPort == nil)
        #expect(try await load(["POSTERN_SANDBOX_SMTP_PORT": "0"]).sandbox.smtpPort == 0)
        await #expect(throws: ConfigurationError.self) { try await load(["POSTERN_SANDBOX_SMTP_PORT": "none"]) }
        #expect(try await load([:]).sandbox.smtpPort == 2587)
        #expect(
            try await load(["POSTERN_SANDBOX_SMTP_PLAINTEXT_AUTH": "never"]).sandbox.plaintextAuthOnLoopback == false)
        var configuration = TestServer.configuration(backend)
        configuration.smtp.tlsCertificate = "/nonexistent/cert.pem"
        configuration.smtp.tlsKey = "/nonexistent/key.pem"
        await #expect(throws: ConfigurationError.self) { _ = try await TestServer.start(backend) { $0 = configuration } }
    }
}
