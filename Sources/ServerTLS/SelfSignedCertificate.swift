import COpenSSL

/// A self-signed certificate and its key, made with libcrypto: for a server that must offer TLS (SMTP's STARTTLS)
/// before the operator has given it a certificate. An ECDSA P-256 key, SHA-256 signature, the host name as subject
/// common name, the host name and the other names asked for as subject alternative names (an address as an IP name,
/// so that a client told to reach `127.0.0.1` verifies it), valid from now for ten years.
public struct SelfSignedCertificate: Sendable {
    /// The certificate (`BEGIN CERTIFICATE`).
    public let certificatePEM: String
    /// Its private key as unencrypted PKCS#8 (`BEGIN PRIVATE KEY`).
    public let privateKeyPEM: String

    /// Generates a new pair for `hostname` (a DNS name) and `alternativeNames` (a host name that is no DNS name is left
    /// out).
    /// - Throws: ``TLSError`` when OpenSSL fails.
    public static func generate(hostname: String, alternativeNames: [SubjectAlternativeName] = []) throws(TLSError)
        -> SelfSignedCertificate
    {
        ERR_clear_error()
        let key = try generateKey()
        defer { EVP_PKEY_free(key) }
        guard let certificate = X509_new() else { throw TLSError("X509_new") }
        defer { X509_free(certificate) }
        var serial = [UInt8](repeating: 0, count: 8)
        guard RAND_bytes(&serial, Int32(serial.count)) == 1 else { throw TLSError("RAND_bytes") }
        let serialNumber = serial.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } >> 1  // positive
        let name = hostname.isEmpty ? "localhost" : hostname
        guard X509_set_version(certificate, 2) == 1,
            ASN1_INTEGER_set_uint64(X509_get_serialNumber(certificate), serialNumber) == 1,
            X509_gmtime_adj(X509_getm_notBefore(certificate), 0) != nil,
            X509_gmtime_adj(X509_getm_notAfter(certificate), 10 * 365 * 24 * 3600) != nil,
            X509_set_pubkey(certificate, key) == 1,
            let subject = X509_get_subject_name(certificate),
            X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, name, -1, -1, 0) == 1,
            X509_set_issuer_name(certificate, subject) == 1
        else { throw TLSError("building the certificate") }
        let alternatives = subjectAlternativeNames([.dns(name)] + alternativeNames)
        if !alternatives.isEmpty,
            let alternative = X509V3_EXT_conf_nid(nil, nil, NID_subject_alt_name, alternatives.joined(separator: ","))
        {
            defer { X509_EXTENSION_free(alternative) }
            guard X509_add_ext(certificate, alternative, -1) == 1 else { throw TLSError("adding subjectAltName") }
        } else {
            ERR_clear_error()  // a name OpenSSL will not take as a DNS name: the common name alone
        }
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw TLSError("signing the certificate") }
        let certificatePEM = try pem("writing the certificate") { PEM_write_bio_X509($0, certificate) }
        let keyPEM = try pem("writing the private key") {
            PEM_write_bio_PKCS8PrivateKey($0, key, nil, nil, 0, nil, nil)
        }
        return SelfSignedCertificate(certificatePEM: certificatePEM, privateKeyPEM: keyPEM)
    }

    /// Whether the certificate of `certificatePEM` names every one of `names` that ``generate(hostname:
    /// alternativeNames:)`` would put in (a host name as a DNS name, an address as an IP name), as a client verifying
    /// it checks; false for a certificate that does not parse.
    public static func names(_ names: [SubjectAlternativeName], in certificatePEM: String) -> Bool {
        let bytes = Array(certificatePEM.utf8)
        let certificate: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        defer { ERR_clear_error() }
        guard let certificate else { return false }
        defer { X509_free(certificate) }
        return names.filter { !$0.entries.isEmpty }.allSatisfy { name in
            switch name {
            case .dns(let host): X509_check_host(certificate, host, host.utf8.count, 0, nil) == 1
            case .ipv4(let address), .ipv6(let address): X509_check_ip_asc(certificate, address, 0) == 1
            }
        }
    }

    /// `names` as OpenSSL's `subjectAltName` entries (``SubjectAlternativeName/entries``), each name once.
    static func subjectAlternativeNames(_ names: [SubjectAlternativeName]) -> [String] {
        var seen: Set<SubjectAlternativeName> = []
        return names.filter { seen.insert($0).inserted }.flatMap(\.entries)
    }
    private static func generateKey() throws(TLSError) -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw TLSError("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &key) == 1, let key
        else { throw TLSError("generating the key") }
        return key
    }

    /// Runs `write` on a memory BIO and returns what it wrote as text.
    private static func pem(_ operation: String, _ write: (OpaquePointer) -> Int32) throws(TLSError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw TLSError("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw TLSError(operation) }
        var data: UnsafeMutablePointer<CChar>?
        let count = postern_BIO_get_mem_data(bio, &data)
        guard count > 0, let data else { throw TLSError(operation) }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: Int(count)), as: UTF8.self)
    }
}

/// One name a certificate is for: a host name (a DNS name) or an address (an IP name), as the caller knows it.
public enum SubjectAlternativeName: Sendable, Hashable {
    /// A host name; lowercased, and left out unless it is letters, digits, hyphens and dots.
    case dns(String)
    /// An IPv4 address in dotted form: an IP name, and a DNS name too (clients that compare the name they were given
    /// with DNS names alone, as fetchmail and `openssl s_client -verify_hostname` do, find it there).
    case ipv4(String)
    /// An IPv6 address: an IP name.
    case ipv6(String)

    /// OpenSSL's `subjectAltName` entries for the name (`DNS:localhost`, `IP:127.0.0.1`, `DNS:127.0.0.1`, `IP:::1`);
    /// none for a host name that is no DNS name.
    var entries: [String] {
        switch self {
        case .dns(let host):
            let name = host.lowercased()
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isHostNameByte), !name.hasPrefix("."), !name.hasPrefix("-")
            else { return [] }
            return ["DNS:" + name]
        case .ipv4(let address): return ["IP:" + address, "DNS:" + address]
        case .ipv6(let address): return ["IP:" + address]
        }
    }

    /// A lowercase letter, a digit, `-` or `.`.
    private static func isHostNameByte(_ byte: UInt8) -> Bool {
        byte == 0x2D || byte == 0x2E || (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
