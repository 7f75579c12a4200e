import AuthCrypto
import HTTP1

/// A script the pages load from this origin (`script-src 'self'`): its bytes compiled into the binary, served at
/// ``path`` as `text/javascript` with `nosniff`, revalidated on every use (`no-cache` and a strong `ETag`), so that a
/// new binary's script is never one cached from the old. The web inbox's live list and the passkey forms have one each.
public struct PageScript: Sendable {
    /// Where the pages load it from.
    public let path: String
    /// The script's bytes.
    public let bytes: [UInt8]
    /// Its strong validator: the first 16 bytes of its SHA-256, base64url, quoted.
    public let entityTag: String

    /// The script `bytes`, served at `path`.
    public init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
        entityTag = "\"" + Base64URL.encode(Array(SHA256.hash(bytes).prefix(16))) + "\""
    }

    /// The script, or a 304 when the browser holds this version (`If-None-Match`).
    public func response(to request: HTTPRequest) -> HTTPResponse {
        let cached =
            request.headers["If-None-Match"].map { header in
                header.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == entityTag }
            } ?? false
        var response = HTTPResponse(status: cached ? .notModified : .ok, body: cached ? [] : bytes)
        response.headers.replaceOrAdd("Content-Type", "text/javascript; charset=utf-8")
        response.headers.replaceOrAdd("Cache-Control", "no-cache")
        response.headers.replaceOrAdd("ETag", entityTag)
        response.headers.replaceOrAdd("X-Content-Type-Options", "nosniff")
        return response
    }
}
