/// An incremental HTTP/1.1 request parser: bytes in, requests out, for any split of the stream.
///
/// Feed received bytes with `append(_:)` and call `next()` until it returns nil (more bytes
/// needed). Requests come out in order, so pipelined requests need nothing special. Every buffer
/// is capped by `HTTPParserLimits`. After a thrown error the parser stays failed: answer with
/// `error.status` and close the connection.
///
/// The parser is strict where leniency lets two parsers disagree about where a message ends
/// (request smuggling): bare CR or LF, obs-fold, whitespace before a colon, `Content-Length` with
/// `Transfer-Encoding`, repeated or list `Content-Length`, and any coding but `chunked` are refused.
public struct HTTPRequestParser: Sendable {
    /// The limits in force.
    public let limits: HTTPParserLimits

    enum State: Sendable {
        case requestLine
        case headers
        case bodyLimitPending
        case contentBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case failed(HTTPParseError)
    }

    var state: State = .requestLine
    /// Received bytes; `position` is the first not yet consumed.
    var buffer: [UInt8] = []
    var position = 0
    /// Where the search for the next LF resumes (so byte-at-a-time input stays linear).
    var scanFrom = 0

    // The message being parsed.
    var method: HTTPMethod = .GET
    var target = ""
    var targetIsPath = false
    var version: HTTPVersion = .http1_1
    var headers = HTTPHeaders()
    var headerBytes = 0
    var emptyLines = 0
    /// What the message's header lines say about its framing.
    var facts = HeadFacts()
    var body: [UInt8] = []
    var bodyLimit: Int
    var trailerBytes = 0
    /// An answered request's storage, taken back by `reclaim` for the next request.
    var spareStorage: HTTPRequest.Storage?
    /// Whether the last head is kept for a request that repeats it (off only to compare with a fresh parse).
    let cachesRepeatedHead: Bool
    /// The last head parsed from one read, for the next request that repeats it; it also keeps the head's header
    /// list, whose room the next head's lines reuse.
    var lastHead = RepeatedHead()
    /// Where the head being parsed line by line started in `buffer`; nil once the bytes moved.
    var headStart: Int?

    /// Creates a parser.
    /// - Parameter limits: the limits to enforce.
    public init(limits: HTTPParserLimits = HTTPParserLimits()) {
        self.init(limits: limits, cachesRepeatedHead: true)
    }

    /// Creates a parser that keeps the last head (`RepeatedHead`) or parses every head afresh.
    init(limits: HTTPParserLimits, cachesRepeatedHead: Bool) {
        self.limits = limits
        self.cachesRepeatedHead = cachesRepeatedHead
        bodyLimit = limits.maxBodyLength
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes.
    public mutating func append<S: Sequence<UInt8>>(contentsOf bytes: S) {
        buffer.append(contentsOf: bytes)
    }

    /// Sets the body limit for the message whose head was just returned; the next message starts
    /// again from `limits.maxBodyLength`.
    public mutating func setBodyLimit(_ limit: Int) {
        bodyLimit = max(0, limit)
    }

    /// Bytes received but not yet consumed.
    public var bufferedByteCount: Int { buffer.count - position }

    /// Takes out the bytes received after the last complete message, for the protocol a connection switches to
    /// after it (`101 Switching Protocols`): the parser holds nothing afterwards.
    public mutating func takeUnparsedBytes() -> [UInt8] {
        let rest = Array(buffer[position...])
        buffer = []
        position = 0
        scanFrom = 0
        headStart = nil
        return rest
    }

    /// Whether part of a message has been received (a head or body is incomplete).
    public var hasPartialMessage: Bool {
        if case .requestLine = state { return buffer.count > position || emptyLines > 0 }
        return true
    }

    /// Whether the parser has thrown and can no longer be used.
    public var hasFailed: Bool {
        if case .failed = state { return true }
        return false
    }

    /// Parses as far as the bytes allow.
    /// - Returns: the next event, or nil when more bytes are needed.
    /// - Throws: `HTTPParseError` when the request must be refused; every later call throws it again.
    public mutating func next() throws(HTTPParseError) -> HTTPParserEvent? {
        // Between requests with nothing buffered, as after every request of a keep-alive client: nothing to do.
        if case .requestLine = state, position == buffer.count { return nil }
        if case .failed(let error) = state { throw error }
        let event: HTTPParserEvent?
        do {
            event = try step()
        } catch let error as HTTPParseError {
            state = .failed(error)
            throw error
        } catch {
            let refusal = HTTPParseError(.invalidRequestLine)
            state = .failed(refusal)
            throw refusal
        }
        compact()
        return event
    }

    // MARK: - Steps

    private mutating func step() throws -> HTTPParserEvent? {
        while true {
            switch state {
            case .requestLine:
                if takeRepeatedHead() {
                    if let event = try finishHead() { return event }
                    continue
                }
                // Before the line's end is looked for, so that the verdict is the same however the line arrives.
                try refuseNonMethodStart()
                guard let lineEnd = try nextLine(limit: limits.maxRequestLineLength, tooLong: .requestLineTooLong)
                else { return nil }
                if lineEnd == position {
                    emptyLines += 1
                    if emptyLines > limits.maxLeadingEmptyLines { throw HTTPParseError(.tooManyEmptyLines) }
                    position = lineEnd + 2
                    continue
                }
                let start = position
                (method, target, targetIsPath, version) = try buffer.withUnsafeBufferPointer { bytes in
                    try HTTPRequestParser.parseRequestLine(bytes, start, lineEnd)
                }
                headStart = start
                position = lineEnd + 2
                state = .headers
                headers = lastHead.takeHeaders()

            case .headers:
                let remaining = limits.maxHeaderBlockLength - headerBytes - 2
                guard let lineEnd = try nextLine(limit: max(0, remaining), tooLong: .headerBlockTooLarge)
                else { return nil }
                headerBytes += lineEnd - position + 2
                if lineEnd == position {
                    position = lineEnd + 2
                    keepHead()
                    if let event = try finishHead() { return event }
                    continue
                }
                if headers.count >= limits.maxHeaderCount { throw HTTPParseError(.tooManyHeaders) }
                try parseHeaderLine(from: position, to: lineEnd)
                position = lineEnd + 2

            case .bodyLimitPending:
                if let length = facts.contentLength {
                    if length > bodyLimit { throw HTTPParseError(.bodyTooLarge) }
                    body.reserveCapacity(length)
                    state = .contentBody(remaining: length)
                } else {
                    state = .chunkSize
                }

            case .contentBody(let remaining):
                let take = min(remaining, buffer.count - position)
                if take > 0 {
                    body.append(contentsOf: buffer[position..<(position + take)])
                    position += take
                }
                if take == remaining { return completeRequest() }
                state = .contentBody(remaining: remaining - take)
                return nil

            case .chunkSize:
                guard let lineEnd = try nextChunkLine() else { return nil }
                let start = position
                let size = try buffer.withUnsafeBufferPointer { bytes in
                    try HTTPRequestParser.parseChunkSize(bytes, start, lineEnd, limits: limits)
                }
                position = lineEnd + 2
                if size == 0 {
                    state = .trailers
                } else {
                    if size > bodyLimit - body.count { throw HTTPParseError(.bodyTooLarge) }
                    state = .chunkData(remaining: size)
                }

            case .chunkData(let remaining):
                let take = min(remaining, buffer.count - position)
                if take > 0 {
                    body.append(contentsOf: buffer[position..<(position + take)])
                    position += take
                }
                if take < remaining {
                    state = .chunkData(remaining: remaining - take)
                    return nil
                }
                state = .chunkDataEnd

            case .chunkDataEnd:
                guard buffer.count - position >= 2 else {
                    if buffer.count > position && buffer[position] != UInt8.cr {
                        throw HTTPParseError(.invalidChunkFraming)
                    }
                    return nil
                }
                guard buffer[position] == .cr && buffer[position + 1] == .lf else {
                    throw HTTPParseError(.invalidChunkFraming)
                }
                position += 2
                scanFrom = position
                state = .chunkSize

            case .trailers:
                let remaining = limits.maxTrailerLength - trailerBytes - 2
                guard let lineEnd = try nextLine(limit: max(0, remaining), tooLong: .trailersTooLarge)
                else { return nil }
                if lineEnd == position {
                    position = lineEnd + 2
                    return completeRequest()
                }
                trailerBytes += lineEnd - position + 2
                let start = position
                try buffer.withUnsafeBufferPointer { bytes in
                    // Trailers are ignored, but must not smuggle control bytes or folded lines.
                    if bytes[start] == .space || bytes[start] == .tab { throw HTTPParseError(.obsoleteLineFolding) }
                    for i in start..<lineEnd where !bytes[i].isFieldValueByte {
                        throw HTTPParseError(.invalidHeaderValue)
                    }
                }
                position = lineEnd + 2

            case .failed(let error):
                throw error
            }
        }
    }

    /// Finds the end of the line starting at `position`.
    /// - Returns: the index of its CR (the line is `position..<result`), or nil when incomplete.
    /// - Throws: `tooLong` when the line (CRLF excluded) exceeds `limit`; `.bareLineEnding` for an LF
    ///   without CR before it.
    private mutating func nextLine(limit: Int, tooLong: HTTPParseError.Code) throws -> Int? {
        let start = max(scanFrom, position)
        let lf = buffer.withUnsafeBufferPointer { ASCII.firstLF($0, from: start) }
        guard let lf else {
            scanFrom = buffer.count
            // A line of exactly `limit` bytes may still be waiting for its CR LF.
            if buffer.count - position > limit + 1 { throw HTTPParseError(tooLong) }
            return nil
        }
        // Checked before the line ending, so that the verdict does not depend on whether the LF
        // arrived in the same read as the bytes that overflowed the limit.
        if lf - position > limit + 1 { throw HTTPParseError(tooLong) }
        guard lf > position, buffer[lf - 1] == .cr else { throw HTTPParseError(.bareLineEnding) }
        let lineEnd = lf - 1
        if lineEnd - position > limit { throw HTTPParseError(tooLong) }
        scanFrom = lf + 1
        return lineEnd
    }

    /// Refuses a request line whose first byte can start neither a method nor an empty line, such as a TLS
    /// ClientHello (0x16) on the plain port, at once rather than when the line would overflow or time out.
    private func refuseNonMethodStart() throws {
        guard position < buffer.count else { return }
        let first = buffer[position]
        if !first.isTokenCharacter && first != .cr { throw HTTPParseError(.invalidMethod) }
    }

    /// `nextLine` for chunk-size lines, whose overflow is blamed on the digits or the extension.
    private mutating func nextChunkLine() throws -> Int? {
        let limit = limits.maxChunkSizeDigits + limits.maxChunkExtensionLength
        do {
            return try nextLine(limit: limit, tooLong: .invalidChunkExtension)
        } catch let error as HTTPParseError where error.code == .invalidChunkExtension {
            let digits = buffer[position...].prefix { ASCII.hexValue($0) != nil }.count
            throw HTTPParseError(digits > limits.maxChunkSizeDigits ? .invalidChunkSize : .invalidChunkExtension)
        }
    }

    /// Applies the message-level rules once the empty line ending the head is read.
    private mutating func finishHead() throws -> HTTPParserEvent? {
        if facts.contentLength != nil && facts.transferEncodingSeen {
            throw HTTPParseError(.contentLengthWithTransferEncoding)
        }
        if facts.transferEncodingSeen && version == .http1_0 {
            // RFC 9112 §6.1: framing of a 1.0 message with Transfer-Encoding is faulty.
            throw HTTPParseError(.invalidTransferEncoding)
        }
        if facts.hostCount == 0 && version == .http1_1 { throw HTTPParseError(.missingHost) }
        if version != .http1_1 { facts.expectsContinue = false }
        if facts.chunked || (facts.contentLength ?? 0) > 0 {
            state = .bodyLimitPending
            return .head(
                HTTPRequestHead(
                    method: method, target: target, version: version, headers: headers,
                    contentLength: facts.chunked ? nil : facts.contentLength, isChunked: facts.chunked,
                    expectsContinue: facts.expectsContinue, keepAlive: keepAlive))
        }
        return completeRequest()
    }

    var keepAlive: Bool {
        version == .http1_1 ? !facts.connectionClose : (facts.connectionKeepAlive && !facts.connectionClose)
    }

    private mutating func completeRequest() -> HTTPParserEvent {
        // Moved out, not copied: the parser's fields are left empty for the next message with nothing to release.
        var target = ""
        var headers = HTTPHeaders()
        var body: [UInt8] = []
        swap(&target, &self.target)
        swap(&headers, &self.headers)
        swap(&body, &self.body)
        let (path, query) = targetIsPath ? (target, nil) : HTTPRequest.split(target: target)
        let request: HTTPRequest
        if let storage = spareStorage {
            spareStorage = nil
            request = HTTPRequest(
                reusing: storage, method: method, target: target, path: path, query: query, version: version,
                headers: headers, body: body)
        } else {
            request = HTTPRequest(
                storage: HTTPRequest.Storage(
                    method: method, target: target, path: path, query: query, version: version, headers: headers,
                    body: body, remoteAddress: "", requestID: ""))
        }
        let event = HTTPParserEvent.request(request, keepAlive: keepAlive)
        // Reset the message state; the buffer keeps any pipelined bytes.
        state = .requestLine
        headerBytes = 0
        emptyLines = 0
        facts = HeadFacts()
        bodyLimit = limits.maxBodyLength
        trailerBytes = 0
        scanFrom = position
        return event
    }

    /// Takes back a request once it has been answered, when nothing else holds it (a handler that keeps the
    /// request, or a copy of it, keeps it whole): the next request is made in its storage, where each request
    /// allocated and freed one. Its header list lives on in the last header block, whose room the next block reuses.
    ///
    /// The body is released now, the rest when the next request replaces it.
    public mutating func reclaim(_ request: consuming HTTPRequest) {
        guard isKnownUniquelyReferenced(&request.storage) else { return }
        let storage = request.storage
        storage.headers = HTTPHeaders()  // the block's list is then held by the block alone, and emptied in place
        storage.body = []
        spareStorage = storage
    }

    /// Drops consumed bytes so the buffer does not grow across requests.
    private mutating func compact() {
        guard position > 0 else { return }
        headStart = nil  // a head split over reads is not kept
        if position == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            scanFrom = 0
            position = 0
        } else if position >= 4096 {
            buffer.removeFirst(position)
            scanFrom = max(0, scanFrom - position)
            position = 0
        }
    }
}
