import Foundation
import Logging
import ServerTLS

/// The certificate SMTP's STARTTLS presents: the operator's (``SMTPListenerConfiguration/operatorCertificate()``), or a
/// self-signed pair kept in the data directory, generated with libcrypto on first use.
enum SMTPCertificate {
    /// The operator's certificate, or the data directory's self-signed pair (made now if missing).
    static func configuredOrSelfSigned(_ configuration: PosternConfiguration, logger: Logger) throws
        -> TLSServerContext
    {
        if let configured = try configuration.smtp.operatorCertificate() { return configured }
        let directory = configuration.storage.dataDirectory
        try DataDirectory.prepare(directory)
        let certificate = directory + "/smtp-tls-cert.pem"
        let key = directory + "/smtp-tls-key.pem"
        if !FileManager.default.fileExists(atPath: certificate) || !FileManager.default.fileExists(atPath: key) {
            let pair = try SelfSignedCertificate.generate(hostname: configuration.smtp.hostname)
            try write(pair.privateKeyPEM, to: key)
            try write(pair.certificatePEM, to: certificate)
            logger.notice(
                "generated a self-signed SMTP certificate", metadata: ["certificate": "\(certificate)"])
        }
        return try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key)
    }

    /// Writes `text` to `path` with mode 0600, replacing it atomically.
    private static func write(_ text: String, to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary]) }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}
