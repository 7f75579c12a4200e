import BrowserPages
import EmbeddedResources

/// The one script of the web inbox (`Sources/EmbeddedResources/web-inbox-live.js`, compiled into the binary), served
/// at ``path`` (no framework, no CDN, no inline script): on a list page it listens to the mailbox's event stream
/// (`nav#live`'s `data-events`, from its `data-state`) and, when the mailbox changes, fetches the page again and swaps
/// `#messages` and `nav#live`'s content in (`DOMParser`), saying "New mail" in `nav#live` (`aria-live`) when mail
/// arrived. On a later page (`data-first` set) it swaps nothing: the
/// rows would move under the reader; it turns `a#reload` into "New mail: reload", a link to the first page. Without
/// JavaScript, or when the stream is refused, the page is as rendered and `a#reload` reloads it. On a message page it
/// makes the HTML part's frame (`iframe#html-body`, sandboxed without scripts but keeping its origin) as tall as the
/// message, when the part loads and whenever its size changes; without JavaScript the frame keeps its CSS height.
enum WebInboxLiveScript {
    /// Where the pages load it from.
    static let path = "/inbox/assets/live.js"

    /// The script as served (``BrowserPages/PageScript``): `Sources/EmbeddedResources/web-inbox-live.js`, compiled
    /// into the binary.
    static let script = PageScript(path: path, bytes: EmbeddedResources.webInboxScript.bytes)
}
