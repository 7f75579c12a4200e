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
    var hostCount = 0
    var contentLength: Int?
    var chunked = false
    var transferEncodingSeen = false
    var connectionClose = false
    var connectionKeepAlive = false
    var expectsContinue = false

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
        list.fields.removeAll(keepingCapacity: true)
        return list
    }

    /// Whether `headers` is this block's header list itself (not a copy of it).
    func holds(_ headers: HTTPHeaders) -> Bool {
        self.headers.sharesStorage(with: headers)
    }
}

extension HTTPRequestParser {
    /// Takes the last block's result when the bytes at `position` repeat it; true when it did.
    mutating func takeRepeatedHeaderBlock() -> Bool {
        guard lastHeaderBlock.matches(buffer, at: position) else { return false }
        let block = lastHeaderBlock
        headers = block.headers
        headerBytes = block.bytes.count
        hostCount = block.hostCount
        contentLength = block.contentLength
        chunked = block.chunked
        transferEncodingSeen = block.transferEncodingSeen
        connectionClose = block.connectionClose
        connectionKeepAlive = block.connectionKeepAlive
        expectsContinue = block.expectsContinue
        position += block.bytes.count
        scanFrom = position
        headerBlockStart = nil
        return true
    }

    /// Keeps the block that ends at `position`, parsed line by line from `headerBlockStart`, for the next request.
    mutating func keepHeaderBlock() {
        guard let start = headerBlockStart else { return }
        headerBlockStart = nil
        guard position - start <= RepeatedHeaderBlock.maximumLength else { return }
        lastHeaderBlock.bytes.removeAll(keepingCapacity: true)
        lastHeaderBlock.bytes.append(contentsOf: buffer[start..<position])
        lastHeaderBlock.headers = headers
        lastHeaderBlock.hostCount = hostCount
        lastHeaderBlock.contentLength = contentLength
        lastHeaderBlock.chunked = chunked
        lastHeaderBlock.transferEncodingSeen = transferEncodingSeen
        lastHeaderBlock.connectionClose = connectionClose
        lastHeaderBlock.connectionKeepAlive = connectionKeepAlive
        lastHeaderBlock.expectsContinue = expectsContinue
    }
}
