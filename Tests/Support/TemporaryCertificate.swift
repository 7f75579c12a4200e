import Foundation
import ServerTLS

/// A self-signed certificate for `localhost` in a temporary directory: the server's pair and, as the client's trust
/// roots, the certificate itself.
public struct TemporaryCertificate {
    public let directory: URL
    public let certificateFile: String
    public let keyFile: String

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("postern-cert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let pair = try SelfSignedCertificate.generate(hostname: "localhost")
        certificateFile = directory.appendingPathComponent("cert.pem").path
        keyFile = directory.appendingPathComponent("key.pem").path
        try pair.certificatePEM.write(toFile: certificateFile, atomically: true, encoding: .utf8)
        try pair.privateKeyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
    }

    public func context() throws -> TLSServerContext {
        try TLSServerContext(certificateChainFile: certificateFile, privateKeyFile: keyFile)
    }

    public func remove() { try? FileManager.default.removeItem(at: directory) }
}
