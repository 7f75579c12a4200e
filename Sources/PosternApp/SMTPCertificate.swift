import ClientAddress
import Foundation
import Logging
import ServerTLS

/// The certificate SMTP's STARTTLS presents: the operator's (``SMTPListenerConfiguration/operatorCertificate()``), or a
/// self-signed pair kept in the data directory, generated with libcrypto on first use. The self-signed one names
/// ``names(_:)``: the greeting's host name, `localhost`, `127.0.0.1`, `::1` and the public URL's host, so that a
/// client given it as its CA file verifies whichever of them it was told to reach (docs/imap.md's lines use
/// `127.0.0.1`). A pair made before it named them all is made again.
enum SMTPCertificate {
    /// The operator's certificate, or the data directory's self-signed pair (made now if missing or if it does not
    /// name every one of ``names(_:)``).
    static func configuredOrSelfSigned(_ configuration: PosternConfiguration, logger: Logger) throws
        -> TLSServerContext
    {
        if let configured = try configuration.smtp.operatorCertificate() { return configured }
        let directory = configuration.storage.dataDirectory
        try DataDirectory.prepare(directory)
        let certificate = directory + "/smtp-tls-cert.pem"
        let key = directory + "/smtp-tls-key.pem"
        let names = names(configuration)
        let kept = FileManager.default.contents(atPath: certificate).map { String(decoding: $0, as: UTF8.self) }
        if kept == nil || !FileManager.default.fileExists(atPath: key)
            || !SelfSignedCertificate.names(names, in: kept ?? "")
        {
            let pair = try SelfSignedCertificate.generate(
                hostname: configuration.smtp.hostname, alternativeNames: names)
            try write(pair.privateKeyPEM, to: key)
            try write(pair.certificatePEM, to: certificate)
            let message: Logger.Message =
                kept == nil
                ? "generated a self-signed SMTP certificate"
                : "generated a self-signed SMTP certificate again: the one kept did not name every local name"
            logger.notice(
                message,
                metadata: ["certificate": "\(certificate)", "names": "\(names)"])
        }
        return try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key)
    }

    /// The names the self-signed certificate carries: SMTP's host name, `localhost`, `127.0.0.1`, `::1`, and the
    /// public URL's host when one is configured, each an address (``IPAddress``) or a host name.
    static func names(_ configuration: PosternConfiguration) -> [SubjectAlternativeName] {
        var names = [configuration.smtp.hostname, "localhost", "127.0.0.1", "::1"]
        if let publicURL = configuration.identity.publicURL, let host = URL(string: publicURL)?.host, !host.isEmpty {
            names.append(host)
        }
        return names.map { name in
            guard let address = IPAddress(name) else { return .dns(name) }
            return address.isIPv4 ? .ipv4(address.description) : .ipv6(address.description)
        }
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
