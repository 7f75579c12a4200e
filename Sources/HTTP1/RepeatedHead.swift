/// The head of a connection's last request (request line and header block, through the empty line that ends it)
/// and what parsing it gave. A keep-alive client asking for the same thing again (a poll, a health check) sends the
/// same head; when the next head is the same bytes, the parser takes this result instead of parsing it again.
///
/// Invariant: parsing a head depends on nothing but its bytes and the parser's limits, which never change; so for
/// the same bytes the kept result is what parsing them gives. The checks made once the head is complete (`Host` in
/// HTTP/1.1, the framing rules) run on a kept result as on a fresh one. The fuzz target `http1head` checks this:
/// a parser with the cache and one without give the same events, byte for byte.
struct RepeatedHead {
    /// Heads longer than this are not kept: a connection keeps at most this many bytes for it.
    static var maximumLength: Int { 4096 }

    /// The head's bytes, its final empty line included; empty when nothing is kept.
    var bytes: [UInt8] = []
    var method: HTTPMethod = .GET
    var target = ""
    var targetIsPath = false
    var version: HTTPVersion = .http1_1
    var headers = HTTPHeaders()
    var facts = HeadFacts()

    /// Whether `buffer` holds this head's bytes at `start`.
    func matches(_ buffer: [UInt8], at start: Int) -> Bool {
        !bytes.isEmpty && ASCII.holds(buffer, bytes, at: start)
    }

    /// The head's header list, emptied, for the next head's lines; nothing is kept after. The list's room is
    /// reused when its request is gone (answered and reclaimed); else emptying it makes new room of the same size.
    mutating func takeHeaders() -> HTTPHeaders {
        var list = headers
        headers = HTTPHeaders()
        bytes.removeAll(keepingCapacity: true)
        if list.fields.capacity == 0 { return HTTPHeaders(reservingCapacity: 8) }
        list.fields.removeAll(keepingCapacity: true)
        return list
    }
}

extension HTTPRequestParser {
    /// Takes the last head's result when the bytes at `position` repeat it; true when it did.
    mutating func takeRepeatedHead() -> Bool {
        guard cachesRepeatedHead, lastHead.matches(buffer, at: position) else { return false }
        (method, target, targetIsPath, version) = (
            lastHead.method, lastHead.target, lastHead.targetIsPath, lastHead.version
        )
        headers = lastHead.headers
        facts = lastHead.facts
        position += lastHead.bytes.count
        scanFrom = position
        state = .headers
        return true
    }

    /// Keeps the head just parsed, from `headStart` to `position`, for the next request; a head that is too long, or
    /// whose first bytes were dropped from the buffer while it came over several reads, is not kept (nor its header
    /// list).
    mutating func keepHead() {
        defer { headStart = nil }
        guard cachesRepeatedHead, let start = headStart, position - start <= RepeatedHead.maximumLength else { return }
        lastHead.bytes.removeAll(keepingCapacity: true)
        lastHead.bytes.append(contentsOf: buffer[start..<position])
        (lastHead.method, lastHead.target, lastHead.targetIsPath, lastHead.version) = (
            method, target, targetIsPath, version
        )
        lastHead.headers = headers
        lastHead.facts = facts
    }
}
