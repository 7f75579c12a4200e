/// The last request line the parser parsed, and what parsing it gave. A keep-alive client asking for the same
/// resource again (a poll, a health check, the same account read) sends the same line; when the next line is the same
/// bytes the parser takes this result instead of splitting and validating it and making the target's string again.
/// Parsing a request line depends on nothing but its bytes and the parser's limits.
struct RepeatedRequestLine {
    /// Lines longer than this are not kept: a connection keeps at most this many bytes for it.
    static var maximumLength: Int { 1024 }

    /// The line's bytes, without its CR LF.
    var bytes: [UInt8] = []
    var method: HTTPMethod = .GET
    var target = ""
    var targetIsPath = false
    var version: HTTPVersion = .http1_1

    /// Whether `buffer[start..<end]` is this line.
    func matches(_ buffer: [UInt8], from start: Int, to end: Int) -> Bool {
        !bytes.isEmpty && bytes.count == end - start && ASCII.holds(buffer, bytes, at: start)
    }

    /// Keeps `buffer[start..<end]` and what parsing it gave, when it is short enough.
    mutating func keep(
        _ buffer: [UInt8], from start: Int, to end: Int,
        _ parsed: (method: HTTPMethod, target: String, targetIsPath: Bool, version: HTTPVersion)
    ) {
        bytes.removeAll(keepingCapacity: true)
        guard end - start <= Self.maximumLength else { return }
        bytes.append(contentsOf: buffer[start..<end])
        (method, target, targetIsPath, version) = parsed
    }
}
