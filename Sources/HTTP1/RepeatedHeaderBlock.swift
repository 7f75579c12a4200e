/// The header block of a connection's last request whose block was parsed line by line: its bytes, and what parsing
/// them gave (the header list and the framing facts). A keep-alive client sends the same header lines with every
/// request (`Host`, `User-Agent`, `Accept`, its `Authorization`...); when the next block is the same bytes, the
/// parser takes this result instead of splitting, validating and copying each line into strings again.
///
/// Parsing a header block depends on nothing but its bytes and the parser's limits (the request line's checks, such
/// as `Host` being required in HTTP/1.1, are made after the block either way), so the same bytes give the same
/// result.
struct RepeatedHeaderBlock {
    /// Blocks longer than this are not kept: a connection keeps at most this many bytes for it.
    static var maximumLength: Int { 4096 }

    /// The block's bytes, its final empty line included.
    var bytes: [UInt8] = []
    var headers = HTTPHeaders()
    var facts = HeadFacts()

    /// Whether `buffer` holds this block's bytes at `start`.
    func matches(_ buffer: [UInt8], at start: Int) -> Bool {
        !bytes.isEmpty && ASCII.holds(buffer, bytes, at: start)
    }

    /// The block's header list, emptied, for the next block's lines; the block is left empty. The list's room is
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
    /// Takes the last block's result when the bytes at `position` repeat it; true when it did.
    mutating func takeRepeatedHeaderBlock() -> Bool {
        guard lastHeaderBlock.matches(buffer, at: position) else { return false }
        headers = lastHeaderBlock.headers
        facts = lastHeaderBlock.facts
        headerBytes = lastHeaderBlock.bytes.count
        position += lastHeaderBlock.bytes.count
        scanFrom = position
        return true
    }

    /// Keeps the block just parsed line by line, from `headerBlockStart` to `position`, for the next request; a block
    /// that is too long or came over several reads is not kept (nor its header list).
    mutating func keepHeaderBlock() {
        defer { headerBlockStart = nil }
        guard let start = headerBlockStart, position - start <= RepeatedHeaderBlock.maximumLength else { return }
        lastHeaderBlock.bytes.removeAll(keepingCapacity: true)
        lastHeaderBlock.bytes.append(contentsOf: buffer[start..<position])
        lastHeaderBlock.headers = headers
        lastHeaderBlock.facts = facts
    }
}
