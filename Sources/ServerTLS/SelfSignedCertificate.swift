import COpenSSL

/// A self-signed certificate and its key, made with libcrypto: for a server that must offer TLS (SMTP's STARTTLS)
/// before the operator has given it a certificate. An ECDSA P-256 key, SHA-256 signature, the host name as subject
/// common name and DNS subject alternative name, valid from now for ten years.
public struct SelfSignedCertificate: Sendable {
    /// The certificate (`BEGIN CERTIFICATE`).
    public let certificatePEM: String
    /// Its private key as unencrypted PKCS#8 (`BEGIN PRIVATE KEY`).
    public let privateKeyPEM: String

    /// Generates a new pair for `hostname`.
    /// - Throws: ``TLSError`` when OpenSSL fails.
    public static func generate(hostname: String) throws(TLSError) -> SelfSignedCertificate {
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
        if let alternative = X509V3_EXT_conf_nid(nil, nil, NID_subject_alt_name, "DNS:\(name)") {
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
