/// The status line and headers of an HTTP/1.x response.
public struct ResponseHead: Sendable, Equatable {
    /// The status code, 100...999.
    public var status: Int
    /// The minor version: 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var minorVersion: Int
    /// Header fields in order as received, names as sent.
    public var headers: [HeaderField]

    /// One header field.
    public struct HeaderField: Sendable, Equatable {
        /// The field name as sent.
        public var name: String
        /// The field value without surrounding whitespace.
        public var value: String
    }

    /// The first value of `name`, compared case-insensitively.
    public subscript(name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }
}

/// A pure, incremental HTTP/1.x response parser with hard limits: bytes in, head and body out.
///
/// Feed it whatever the socket produced (one byte at a time works too). It stops after the head so
/// the caller can decide whether the body is wanted (a redirect's or an error's body is not), then
/// continues on the next call. Bodies are framed by `Transfer-Encoding: chunked`, `Content-Length`,
/// or the end of the connection (call ``finish()`` at end of input).
struct ResponseParser {
    /// What one call to ``parse(_:)`` achieved.
    enum Progress: Equatable {
        case needMoreData
        case head(ResponseHead)
        case complete([UInt8])
    }

    private enum BodyFraming: Equatable {
        case length(Int)
        case chunkSize
        case chunkData(Int)
        case chunkDataEnd
        case trailers
        case untilClose
        case done
    }

    private enum State: Equatable {
        case head
        case headDelivered(BodyFraming)
        case body(BodyFraming)
        case finished
    }

    let maxHeaderBytes: Int
    let maxBodyBytes: Int
    private var buffer: [UInt8] = []
    private var state = State.head
    private var body: [UInt8] = []
    private var headBytesSeen = 0

    init(maxHeaderBytes: Int, maxBodyBytes: Int) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
    }

    /// Consumes `bytes` and reports progress.
    /// - Throws: ``FetchError/malformedResponse`` or ``FetchError/bodyTooLarge``.
    mutating func parse(_ bytes: [UInt8]) throws(FetchError) -> Progress {
        buffer.append(contentsOf: bytes)
        switch state {
        case .head:
            return try parseHead()
        case .headDelivered(let framing):
            state = .body(framing)
            return try parseBody()
        case .body:
            return try parseBody()
        case .finished:
            return .complete(body)
        }
    }

    /// Signals the end of the connection: completes a close-delimited body, fails anything unfinished.
    mutating func finish() throws(FetchError) -> [UInt8] {
        switch state {
        case .body(.untilClose), .headDelivered(.untilClose):
            _ = try parse([])
            state = .finished
            return body
        case .body(.done), .headDelivered(.done), .finished:
            return body
        default:
            throw .malformedResponse
        }
    }

    // MARK: - Head

    private mutating func parseHead() throws(FetchError) -> Progress {
        while true {
            guard let end = headEnd() else {
                if buffer.count > maxHeaderBytes { throw .malformedResponse }
                return .needMoreData
            }
            guard end.bodyStart <= maxHeaderBytes else { throw .malformedResponse }
            let lines = try splitLines(Array(buffer[..<end.headEnd]))
            buffer.removeFirst(end.bodyStart)
            let head = try parseHeadLines(lines)
            // Interim 1xx responses (except 101, which we never ask for) are skipped.
            if (100...199).contains(head.status) {
                if head.status == 101 { throw .malformedResponse }
                continue
            }
            let framing = try framing(for: head)
            state = .headDelivered(framing)
            return .head(head)
        }
    }

    /// Finds the blank line: returns where the head text ends and where the body starts.
    private func headEnd() -> (headEnd: Int, bodyStart: Int)? {
        var index = 0
        while index < buffer.count {
            if buffer[index] == 0x0a {
                if index + 1 < buffer.count && buffer[index + 1] == 0x0a { return (index, index + 2) }
                if index + 2 < buffer.count && buffer[index + 1] == 0x0d && buffer[index + 2] == 0x0a {
                    return (index, index + 3)
                }
            }
            index += 1
        }
        return nil
    }

    private func splitLines(_ bytes: [UInt8]) throws(FetchError) -> [String] {
        var lines: [String] = []
        for raw in bytes.split(separator: 0x0a, omittingEmptySubsequences: false) {
            var line = Array(raw)
            if line.last == 0x0d { line.removeLast() }
            for byte in line where (byte < 0x20 && byte != 0x09) || byte == 0x7f { throw .malformedResponse }
            lines.append(String(decoding: line, as: UTF8.self))
        }
        return lines
    }

    private func parseHeadLines(_ lines: [String]) throws(FetchError) -> ResponseHead {
        guard let statusLine = lines.first else { throw .malformedResponse }
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2 else { throw .malformedResponse }
        let minor: Int
        switch parts[0] {
        case "HTTP/1.1": minor = 1
        case "HTTP/1.0": minor = 0
        default: throw .malformedResponse
        }
        guard parts[1].count == 3, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let status = Int(parts[1]),
            status >= 100
        else { throw .malformedResponse }
        var headers: [ResponseHead.HeaderField] = []
        for line in lines.dropFirst() {
            guard let first = line.first, first != " ", first != "\t" else { throw .malformedResponse }  // no obs-fold
            guard let colon = line.firstIndex(of: ":") else { throw .malformedResponse }
            let name = String(line[..<colon])
            guard !name.isEmpty, name.utf8.allSatisfy(ResponseParser.isTokenByte) else { throw .malformedResponse }
            let value = line[line.index(after: colon)...].trimmingASCIIWhitespace()
            headers.append(.init(name: name, value: value))
        }
        return ResponseHead(status: status, minorVersion: minor, headers: headers)
    }

    private func framing(for head: ResponseHead) throws(FetchError) -> BodyFraming {
        if head.status == 204 || head.status == 304 { return .done }
        let encodings = head.headers.filter { $0.name.lowercased() == "transfer-encoding" }
            .flatMap { $0.value.lowercased().split(separator: ",").map { $0.trimmingASCIIWhitespace() } }
        if !encodings.isEmpty {
            return encodings.last == "chunked" ? .chunkSize : .untilClose
        }
        let lengths = Set(
            head.headers.filter { $0.name.lowercased() == "content-length" }
                .flatMap { $0.value.split(separator: ",").map { $0.trimmingASCIIWhitespace() } })
        if lengths.isEmpty { return .untilClose }
        guard lengths.count == 1, let text = lengths.first, !text.isEmpty, text.count <= 18,
            text.allSatisfy({ $0.isASCII && $0.isNumber }), let length = Int(text)
        else { throw .malformedResponse }
        return length == 0 ? .done : .length(length)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    // MARK: - Body

    private mutating func appendBody<C: Collection<UInt8>>(_ bytes: C) throws(FetchError) {
        guard body.count + bytes.count <= maxBodyBytes else { throw .bodyTooLarge }
        body.append(contentsOf: bytes)
    }

    /// Moves up to `remaining` bytes of a known length (the body's, or a chunk's) from the buffer to the body: how many
    /// are still to come.
    private mutating func takeBody(_ remaining: Int) throws(FetchError) -> Int {
        let take = min(remaining, buffer.count)
        try appendBody(buffer[..<take])
        buffer.removeFirst(take)
        return remaining - take
    }

    private mutating func parseBody() throws(FetchError) -> Progress {
        while case .body(let framing) = state {
            switch framing {
            case .done:
                state = .finished
                buffer.removeAll()
                return .complete(body)
            case .length(let remaining):
                guard body.count + remaining <= maxBodyBytes else { throw .bodyTooLarge }
                let left = try takeBody(remaining)
                state = .body(left == 0 ? .done : .length(left))
                if left > 0 { return .needMoreData }
            case .untilClose:
                try appendBody(buffer)
                buffer.removeAll()
                return .needMoreData
            case .chunkSize:
                guard let newline = buffer.firstIndex(of: 0x0a) else {
                    if buffer.count > 1024 { throw .malformedResponse }
                    return .needMoreData
                }
                var line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                if line.last == 0x0d { line.removeLast() }
                let sizeText = String(decoding: line, as: UTF8.self)
                    .split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
                    .trimmingASCIIWhitespace()
                guard !sizeText.isEmpty, sizeText.count <= 8, let size = Int(sizeText, radix: 16) else {
                    throw .malformedResponse
                }
                if size == 0 {
                    state = .body(.trailers)
                } else {
                    guard body.count + size <= maxBodyBytes else { throw .bodyTooLarge }
                    state = .body(.chunkData(size))
                }
            case .chunkData(let remaining):
                let left = try takeBody(remaining)
                state = .body(left == 0 ? .chunkDataEnd : .chunkData(left))
                if left > 0 { return .needMoreData }
            case .chunkDataEnd:
                if buffer.first == 0x0d {
                    guard buffer.count >= 2 else { return .needMoreData }
                    guard buffer[1] == 0x0a else { throw .malformedResponse }
                    buffer.removeFirst(2)
                } else if buffer.first == 0x0a {
                    buffer.removeFirst(1)
                } else if buffer.isEmpty {
                    return .needMoreData
                } else {
                    throw .malformedResponse
                }
                state = .body(.chunkSize)
            case .trailers:
                guard let newline = buffer.firstIndex(of: 0x0a) else {
                    if buffer.count > maxHeaderBytes { throw .malformedResponse }
                    return .needMoreData
                }
                let isBlank = newline == 0 || (newline == 1 && buffer[0] == 0x0d)
                buffer.removeFirst(newline + 1)
                if isBlank { state = .body(.done) }
            }
        }
        return .complete(body)
    }
}
