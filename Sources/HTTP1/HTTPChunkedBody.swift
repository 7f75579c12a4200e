/// The chunked transfer coding of a response body (RFC 9112 §7.1), as an open-ended response on HTTP/1.1 is sent: each
/// write one chunk, `size-in-hex CRLF data CRLF`, and the last chunk `0 CRLF CRLF`. A client then knows where each
/// write ends without waiting for its read buffer to fill, as it must with a body delimited by the connection's close
/// (urllib3 reads those in blocks, so an event of 400 bytes waited for the next one).
public enum HTTPChunkedBody {
    /// The last chunk with no trailer: the body is complete.
    public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    /// Appends `data` to `out` as one chunk; nothing for no bytes (an empty chunk would end the body).
    public static func append(_ data: [UInt8], to out: inout [UInt8]) {
        guard !data.isEmpty else { return }
        out.reserveMore(data.count + 20)
        var size = data.count
        var digits: [UInt8] = []
        repeat {
            let digit = UInt8(size & 0xF)
            digits.append(digit < 10 ? 0x30 + digit : 0x61 + digit - 10)
            size >>= 4
        } while size > 0
        out.append(contentsOf: digits.reversed())
        out.appendLiteral("\r\n")
        out.append(contentsOf: data)
        out.appendLiteral("\r\n")
    }

    /// `data` as one chunk.
    public static func chunk(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        append(data, to: &out)
        return out
    }
}
