import AuthCrypto
import EmbeddedResources
import Foundation
import HTTP1

/// The one script of the web inbox (`Sources/EmbeddedResources/web-inbox-live.js`, compiled into the binary), served
/// at ``path`` (no framework, no CDN, no inline script): on a list page it listens to the mailbox's event stream
/// (`nav#live`'s `data-events`, from its `data-state`) and, when the mailbox changes, fetches the page again and swaps
/// `#messages` and `nav#live`'s content in (`DOMParser`), saying "New mail" in `nav#live` (`aria-live`) when mail
/// arrived. On a later page (`data-first` set) it swaps nothing: the
/// rows would move under the reader; it turns `a#reload` into "New mail: reload", a link to the first page. Without
/// JavaScript, or when the stream is refused, the page is as rendered and `a#reload` reloads it.
enum WebInboxLiveScript {
    /// Where the pages load it from.
    static let path = "/inbox/assets/live.js"

    /// The script's bytes: `Sources/EmbeddedResources/web-inbox-live.js`, compiled into the binary.
    static let bytes = EmbeddedResources.webInboxScript.bytes

    /// Its strong validator: the first 16 bytes of its SHA-256, base64url, quoted.
    static let entityTag = "\"" + Base64URL.encode(Array(SHA256.hash(bytes).prefix(16))) + "\""

    /// The script, or a 304 when the browser holds this version (`If-None-Match`): `text/javascript`, `nosniff`,
    /// revalidated on every use (`no-cache` and the `ETag`), so a new binary's script is never one cached from the old.
    static func response(to request: HTTPRequest) -> HTTPResponse {
        let cached = request.headers["If-None-Match"].map { header in
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
