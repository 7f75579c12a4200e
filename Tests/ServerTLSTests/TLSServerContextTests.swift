import Foundation
import ServerTLS
import Testing

/// A self-signed pair, and a server context made of it.
@Suite("TLS server context")
struct TLSServerContextTests {
    /// A self-signed pair for `hostname` written to a temporary directory, loaded as a server context.
    static func context(hostname: String = "mx.test") throws -> TLSServerContext {
        let pair = try SelfSignedCertificate.generate(hostname: hostname)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("postern-tls-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        try pair.certificatePEM.write(toFile: certificate, atomically: true, encoding: .utf8)
        try pair.privateKeyPEM.write(toFile: key, atomically: true, encoding: .utf8)
        return try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key)
    }

    @Test("A self-signed pair loads, and a key that does not match its certificate is refused")
    func contextChecks() throws {
        let one = try SelfSignedCertificate.generate(hostname: "mx.test")
        let two = try SelfSignedCertificate.generate(hostname: "mx.test")
        #expect(one.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(one.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("postern-tls-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        try one.certificatePEM.write(toFile: certificate, atomically: true, encoding: .utf8)
        try two.privateKeyPEM.write(toFile: key, atomically: true, encoding: .utf8)
        #expect(throws: TLSError.self) { try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key) }
        #expect(throws: TLSError.self) {
            try TLSServerContext(certificateChainFile: directory.path + "/missing.pem", privateKeyFile: key)
        }
    }
}
