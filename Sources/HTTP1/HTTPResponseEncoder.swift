/// Serializes responses to HTTP/1.1 bytes, adding the headers the server owns.
///
/// The handler's own `Content-Length`, `Transfer-Encoding`, `Connection`, `Date`, `Server`,
/// `X-Request-Id` and `X-Content-Type-Options` are replaced by the encoder's. Header names that are
/// not tokens are dropped and CR, LF and NUL are removed from values, so that no handler can split a
/// response.
public struct HTTPResponseEncoder: Sendable {
    /// The `Server` header value's bytes.
    private let serverName: [UInt8]

    /// What the encoder needs to know about the request being answered.
    public struct Context: Sendable {
        /// The request method; `HEAD` responses keep `Content-Length` but drop the body.
        public var method: HTTPMethod
        /// The request's version; a 1.0 client that keeps the connection gets `Connection: keep-alive`.
        public var version: HTTPVersion
        /// Whether the connection stays open after this response.
        public var keepAlive: Bool
        /// The `X-Request-Id` value; omitted when empty.
        public var requestID: String

        /// Creates a context.
        public init(method: HTTPMethod, version: HTTPVersion, keepAlive: Bool, requestID: String) {
            self.method = method
            self.version = version
            self.keepAlive = keepAlive
            self.requestID = requestID
        }
    }

    /// Creates an encoder.
    /// - Parameter serverName: the `Server` header value (CR/LF removed); empty omits the header.
    public init(serverName: String = "Postern") {
        self.serverName = serverName.utf8.filter { $0.isFieldValueByte && $0 != .tab }
    }

    /// Appends the encoded response to `out`.
    /// - Parameters:
    ///   - response: the handler's response.
    ///   - context: facts about the request.
    ///   - date: the IMF-fixdate bytes for `Date` (see `HTTPDate`), cached by the caller per second.
    ///   - out: the output buffer.
    public func encode(_ response: HTTPResponse, context: Context, date: [UInt8], into out: inout [UInt8]) {
        let most = headLength(response, requestID: context.requestID, date: date)
        let sendsBody = Self.sendsBody(response, context)
        out.reserveMore(most + (sendsBody ? response.body.count : 0))
        out.appendWriting(atMost: most) { writeHead(response, context, date: date, into: &$0) }
        if sendsBody { out.append(contentsOf: response.body) }
    }

    /// Whether an open-ended response to a request of `context` is sent chunked (`HTTPChunkedBody`): to an HTTP/1.1
    /// client (or later) yes; to HTTP/1.0, which knows no transfer coding, its body ends when the connection closes.
    public static func chunksOpenEnded(_ context: Context) -> Bool {
        context.version.major > 1 || (context.version.major == 1 && context.version.minor >= 1)
    }

    /// Appends the head of an open-ended response (no `Content-Length`; `context.keepAlive` should be false), then
    /// `response`'s body as its first bytes: as its first chunk after `Transfer-Encoding: chunked` when
    /// `chunksOpenEnded(context)`, the later writes then chunks too (`HTTPChunkedBody`); close-delimited otherwise.
    public func encodeOpenEnded(
        _ response: HTTPResponse, context: Context, date: [UInt8], into out: inout [UInt8]
    ) {
        let chunked = Self.chunksOpenEnded(context)
        let most = headLength(response, requestID: context.requestID, date: date) + 28
        out.reserveMore(most + response.body.count)
        out.appendWriting(atMost: most) { head in
            writeHead(response, context, date: date, lengthDelimited: false, into: &head)
            guard chunked else { return }
            head.unwrite(2)  // the coding goes before the blank line
            head.literal("Transfer-Encoding: chunked\r\n\r\n")
        }
        guard context.method != .HEAD else { return }
        if chunked { HTTPChunkedBody.append(response.body, to: &out) } else { out.append(contentsOf: response.body) }
    }

    /// Appends a `101 Switching Protocols` head (RFC 9110 §15.2.2): `response`'s fields (`Upgrade`, and those of the
    /// protocol switched to) with `Connection: Upgrade`, and no body; what follows on the connection is the new
    /// protocol's.
    public func encodeSwitchingProtocols(
        _ response: HTTPResponse, requestID: String, date: [UInt8], into out: inout [UInt8]
    ) {
        let context = Context(method: .GET, version: .http1_1, keepAlive: true, requestID: requestID)
        let most = headLength(response, requestID: requestID, date: date) + 21
        out.reserveMore(most)
        out.appendWriting(atMost: most) { head in
            writeHead(response, context, date: date, lengthDelimited: false, into: &head)
            head.unwrite(2)  // the blank line goes after Connection
            head.literal("Connection: Upgrade\r\n\r\n")
        }
    }

    /// The most bytes `write` writes for `response`, its body included, given the same `memo`.
    public func maximumLength(
        _ response: HTTPResponse, context: Context, date: [UInt8], memo: HTTPHeaderEncodingMemo? = nil
    ) -> Int {
        headLength(response, requestID: context.requestID, date: date, memo: memo)
            + (Self.sendsBody(response, context) ? response.body.count : 0)
    }

    /// Writes the encoded response into `room`, which has at least `maximumLength` bytes (an output buffer's
    /// spare room: no copy of the head on the way); returns the bytes written. The handler's header fields are
    /// copied from `memo` when it holds their encoding, and their encoding is kept there otherwise.
    public func write(
        _ response: HTTPResponse, context: Context, date: [UInt8], memo: HTTPHeaderEncodingMemo? = nil,
        into room: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        var writer = ByteWriter(room)
        writeHead(response, context, date: date, memo: memo, into: &writer)
        if Self.sendsBody(response, context) { response.body.withUnsafeBufferPointer { writer.bytes($0) } }
        return writer.count
    }

    /// Whether the body goes out: not for `HEAD`, nor for a status that forbids one.
    private static func sendsBody(_ response: HTTPResponse, _ context: Context) -> Bool {
        !response.status.forbidsBody && context.method != .HEAD && !response.body.isEmpty
    }

    /// The most bytes the head takes: the literals and numbers (160 bytes at most), then each variable part with
    /// its separators.
    private func headLength(
        _ response: HTTPResponse, requestID: String, date: [UInt8], memo: HTTPHeaderEncodingMemo? = nil
    ) -> Int {
        var most = 160 + response.status.reason.utf8.count + date.count + serverName.count + requestID.utf8.count
        if let encoded = memo?.encoding(of: response.headers) { return most + encoded.count }
        response.headers.fields.withUnsafeBufferPointer { fields in
            for index in fields.indices { most += fields[index].name.utf8.count + fields[index].value.utf8.count + 4 }
        }
        return most
    }

    private func writeHead(
        _ response: HTTPResponse, _ context: Context, date: [UInt8], memo: HTTPHeaderEncodingMemo? = nil,
        lengthDelimited: Bool = true, into head: inout ByteWriter
    ) {
        let status = response.status
        head.literal("HTTP/1.1 ")
        let code = min(max(status.code, 100), 999)
        head.byte(UInt8(0x30 + code / 100))
        head.byte(UInt8(0x30 + code / 10 % 10))
        head.byte(UInt8(0x30 + code % 10))
        head.byte(.space)
        HTTPResponseEncoder.writeFieldValue(status.reason, to: &head)
        head.literal("\r\n")
        if let encoded = memo?.encoding(of: response.headers) {
            encoded.withUnsafeBufferPointer { head.bytes($0) }
        } else {
            let start = head.count
            response.headers.fields.withUnsafeBufferPointer { fields in  // borrowed, not copied field by field
                for index in fields.indices {
                    HTTPResponseEncoder.writeField(fields[index].name, fields[index].value, to: &head)
                }
            }
            memo?.remember(response.headers, head.written(from: start))
        }
        if lengthDelimited && !status.forbidsBody {
            head.literal("Content-Length: ")
            head.decimal(UInt64(response.body.count))
            head.literal("\r\n")
        }
        head.literal("Date: ")
        date.withUnsafeBufferPointer { head.bytes($0) }
        head.literal("\r\n")
        if !serverName.isEmpty {
            head.literal("Server: ")
            serverName.withUnsafeBufferPointer { head.bytes($0) }
            head.literal("\r\n")
        }
        head.literal("X-Content-Type-Options: nosniff\r\n")
        if !context.requestID.isEmpty {
            head.literal("X-Request-Id: ")
            HTTPResponseEncoder.writeFieldValue(context.requestID, to: &head)
            head.literal("\r\n")
        }
        if !context.keepAlive {
            head.literal("Connection: close\r\n")
        } else if context.version == .http1_0 {
            head.literal("Connection: keep-alive\r\n")
        }
        head.literal("\r\n")
    }

    /// The interim `100 Continue` response sent before reading a body the client holds back.
    public static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// The response to a refused request, always with `Connection: close`. Its body should name the
    /// refusal only by a code: no detail of what was parsed is echoed.
    public func encodeRefusal(_ response: HTTPResponse, date: [UInt8], into out: inout [UInt8]) {
        encode(
            response,
            context: Context(method: .GET, version: .http1_1, keepAlive: false, requestID: ""),
            date: date, into: &out)
    }

    private static func isServerOwned(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        switch name.count {
        case 4: return matches(name, "date")
        case 6: return matches(name, "server")
        case 10: return matches(name, "connection")
        case 12: return matches(name, "x-request-id")
        case 14: return matches(name, "content-length")
        case 17: return matches(name, "transfer-encoding")
        case 22: return matches(name, "x-content-type-options")
        default: return false
        }
    }

    private static func matches(_ name: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        lowercase.withUTF8Buffer { expected in
            for i in 0..<expected.count where name[i].asciiLowercased != expected[i] { return false }
            return true
        }
    }

    /// Writes a handler's field, unless its name is one the encoder owns or not a token.
    private static func writeField(_ name: String, _ value: String, to head: inout ByteWriter) {
        let written = name.withUTF8Bytes { bytes -> Bool in  // the name opened once, for both checks and the copy
            guard !bytes.isEmpty, !isServerOwned(bytes) else { return false }
            for byte in bytes where !byte.isTokenCharacter { return false }
            head.bytes(bytes)
            return true
        }
        guard written else { return }
        head.byte(.colon)
        head.byte(.space)
        writeFieldValue(value, to: &head)
        head.byte(.cr)
        head.byte(.lf)
    }

    /// Writes `value` without the bytes a field value may not hold (CR, LF, NUL and other controls).
    private static func writeFieldValue(_ value: String, to head: inout ByteWriter) {
        value.withUTF8Bytes { bytes in
            if ASCII.areFieldValueBytes(bytes, 0, bytes.count) {
                head.bytes(bytes)
            } else {
                for byte in bytes where byte.isFieldValueByte { head.byte(byte) }
            }
        }
    }
}
