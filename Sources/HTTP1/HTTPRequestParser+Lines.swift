// Line-level parsing for HTTPRequestParser: request line, header fields, chunk sizes.

extension HTTPRequestParser {
    /// Parses `method SP request-target SP HTTP-version` from `bytes[start..<end]`; `targetIsPath` when the
    /// target is origin-form without a query, so that it is its own path.
    static func parseRequestLine(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int
    ) throws -> (method: HTTPMethod, target: String, targetIsPath: Bool, version: HTTPVersion) {
        var firstSpace = start
        while firstSpace < end && bytes[firstSpace] != .space {
            guard bytes[firstSpace].isTokenCharacter else { throw HTTPParseError(.invalidMethod) }
            firstSpace += 1
        }
        // An empty method (a line that starts with a space) is refused as a method, as an incomplete line starting
        // with a byte that cannot start one is, so that the verdict does not depend on how the line arrived.
        guard firstSpace > start else { throw HTTPParseError(.invalidMethod) }
        guard firstSpace < end else { throw HTTPParseError(.invalidRequestLine) }
        let targetStart = firstSpace + 1
        var secondSpace = targetStart
        var hasQuery = false
        while secondSpace < end && bytes[secondSpace] != .space {
            // Visible ASCII only: no controls (NUL, CR), no DEL, no raw non-ASCII bytes.
            guard bytes[secondSpace] > 0x20 && bytes[secondSpace] < 0x7F else {
                throw HTTPParseError(.invalidTarget)
            }
            if bytes[secondSpace] == UInt8(ascii: "?") { hasQuery = true }
            secondSpace += 1
        }
        guard secondSpace > targetStart, secondSpace < end else { throw HTTPParseError(.invalidRequestLine) }
        let version = try parseVersion(bytes, secondSpace + 1, end)
        let method = methodFrom(bytes, start, firstSpace)
        let targetBytes = UnsafeBufferPointer(rebasing: bytes[targetStart..<secondSpace])
        try validateTargetForm(targetBytes, method: method)
        let targetIsPath = targetBytes[0] == UInt8(ascii: "/") && !hasQuery
        return (method, String(decoding: targetBytes, as: UTF8.self), targetIsPath, version)
    }

    /// `HTTP/1.1` and `HTTP/1.0`; other `HTTP/d.d` are unsupported (505), anything else malformed (400).
    static func parseVersion(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) throws -> HTTPVersion {
        guard end - start == 8,
            bytes[start] == UInt8(ascii: "H"), bytes[start + 1] == UInt8(ascii: "T"),
            bytes[start + 2] == UInt8(ascii: "T"), bytes[start + 3] == UInt8(ascii: "P"),
            bytes[start + 4] == UInt8(ascii: "/"), bytes[start + 6] == UInt8(ascii: "."),
            (0x30...0x39).contains(bytes[start + 5]), (0x30...0x39).contains(bytes[start + 7])
        else { throw HTTPParseError(.invalidVersion) }
        let major = Int(bytes[start + 5] - 0x30)
        let minor = Int(bytes[start + 7] - 0x30)
        guard major == 1, minor <= 1 else { throw HTTPParseError(.unsupportedVersion) }
        return minor == 1 ? .http1_1 : .http1_0
    }

    /// The method for the token `bytes[start..<end]`, without building a String for common ones.
    static func methodFrom(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> HTTPMethod {
        let token = UnsafeBufferPointer(rebasing: bytes[start..<end])
        switch token.count {
        case 3:
            if spells(token, "GET") { return .GET }
            if spells(token, "PUT") { return .PUT }
        case 4:
            if spells(token, "POST") { return .POST }
            if spells(token, "HEAD") { return .HEAD }
        case 5:
            if spells(token, "PATCH") { return .PATCH }
        case 6:
            if spells(token, "DELETE") { return .DELETE }
        case 7:
            if spells(token, "OPTIONS") { return .OPTIONS }
        default:
            break
        }
        return .other(String(decoding: token, as: UTF8.self))
    }

    /// Whether `token` holds `literal`'s bytes; the caller has matched the lengths. Byte by byte: the
    /// generic `elementsEqual` cost more than the rest of the request line.
    @inline(__always)
    private static func spells(_ token: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { literal in
            var i = 0
            while i < literal.count {
                if token[i] != literal[i] { return false }
                i += 1
            }
            return true
        }
    }

    /// Origin-form (`/p?q`), absolute-form (`http://h/p`), or `*` for OPTIONS.
    static func validateTargetForm(_ target: UnsafeBufferPointer<UInt8>, method: HTTPMethod) throws {
        if target[0] == UInt8(ascii: "/") { return }
        if target.count == 1 && target[0] == UInt8(ascii: "*") {
            guard method == .OPTIONS else { throw HTTPParseError(.invalidTarget) }
            return
        }
        for scheme in ["http://", "https://"] {
            let prefix = Array(scheme.utf8)
            if target.count > prefix.count
                && zip(target, prefix).allSatisfy({ $0.asciiLowercased == $1 })
            {
                return
            }
        }
        throw HTTPParseError(.invalidTarget)
    }

    /// Parses one header line `bytes[start..<end]` (CRLF excluded) and records what framing needs.
    mutating func parseHeaderLine(from start: Int, to end: Int) throws {
        let field = try buffer.withUnsafeBufferPointer { bytes in
            try HTTPRequestParser.splitField(bytes, start, end)
        }
        let (nameStart, nameEnd, valueStart, valueEnd) = field
        let (name, value, kind) = buffer.withUnsafeBufferPointer { bytes in
            let nameBytes = UnsafeBufferPointer(rebasing: bytes[nameStart..<nameEnd])
            let valueBytes = UnsafeBufferPointer(rebasing: bytes[valueStart..<valueEnd])
            return (
                CommonHeaderName.literal(for: nameBytes) ?? String(decoding: nameBytes, as: UTF8.self),
                String(decoding: valueBytes, as: UTF8.self), SpecialHeader(nameBytes)
            )
        }
        switch kind {
        case .none:
            break
        case .host:
            facts.hostCount += 1
            if facts.hostCount > 1 { throw HTTPParseError(.duplicateHost) }
            let valid = buffer.withUnsafeBufferPointer { bytes in
                bytes[valueStart..<valueEnd].allSatisfy(HTTPRequestParser.isHostByte)
            }
            if !valid { throw HTTPParseError(.invalidHost) }
        case .contentLength:
            try recordContentLength(valueStart, valueEnd)
        case .transferEncoding:
            try recordTransferEncoding(value)
        case .connection:
            for token in value.utf8.split(separator: UInt8(ascii: ",")) {
                let trimmed = ASCII.trimmed(Substring(token))
                if ASCII.equalsIgnoringCase(String(trimmed), "close") { facts.connectionClose = true }
                if ASCII.equalsIgnoringCase(String(trimmed), "keep-alive") { facts.connectionKeepAlive = true }
            }
        case .expect:
            guard ASCII.equalsIgnoringCase(value, "100-continue") else {
                throw HTTPParseError(.unsupportedExpectation)
            }
            facts.expectsContinue = true
        }
        headers.add(name, value)
    }

    /// Splits a header line into name and trimmed value bounds, validating both.
    static func splitField(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int
    ) throws -> (Int, Int, Int, Int) {
        if bytes[start] == .space || bytes[start] == .tab { throw HTTPParseError(.obsoleteLineFolding) }
        var colon = start
        while colon < end && bytes[colon] != .colon {
            // A token: this refuses whitespace before the colon, NUL and bare CR in names.
            guard bytes[colon].isTokenCharacter else { throw HTTPParseError(.invalidHeaderName) }
            colon += 1
        }
        guard colon > start, colon < end else { throw HTTPParseError(.invalidHeaderName) }
        var valueStart = colon + 1
        var valueEnd = end
        while valueStart < valueEnd && (bytes[valueStart] == .space || bytes[valueStart] == .tab) { valueStart += 1 }
        while valueEnd > valueStart && (bytes[valueEnd - 1] == .space || bytes[valueEnd - 1] == .tab) { valueEnd -= 1 }
        guard ASCII.areFieldValueBytes(bytes, valueStart, valueEnd) else { throw HTTPParseError(.invalidHeaderValue) }
        return (start, colon, valueStart, valueEnd)
    }

    /// `Content-Length`: one field, plain digits, no list.
    private mutating func recordContentLength(_ start: Int, _ end: Int) throws {
        if facts.contentLength != nil { throw HTTPParseError(.duplicateContentLength) }
        var value = 0
        var digits = 0
        for i in start..<end {
            let byte = buffer[i]
            if byte == UInt8(ascii: ",") { throw HTTPParseError(.duplicateContentLength) }
            guard byte >= 0x30 && byte <= 0x39 else { throw HTTPParseError(.invalidContentLength) }
            digits += 1
            // 18 digits cannot overflow Int64; anything that large is refused as a body anyway.
            guard digits <= 18 else { throw HTTPParseError(.invalidContentLength) }
            value = value * 10 + Int(byte - 0x30)
        }
        guard digits > 0 else { throw HTTPParseError(.invalidContentLength) }
        facts.contentLength = value
    }

    /// `Transfer-Encoding`: only `chunked`, once, across every field.
    private mutating func recordTransferEncoding(_ value: String) throws {
        facts.transferEncodingSeen = true
        var sawToken = false
        for token in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let trimmed = ASCII.trimmed(Substring(token))
            if trimmed.isEmpty { continue }
            sawToken = true
            guard ASCII.equalsIgnoringCase(String(trimmed), "chunked") else {
                throw HTTPParseError(.unsupportedTransferCoding)
            }
            if facts.chunked { throw HTTPParseError(.invalidTransferEncoding) }
            facts.chunked = true
        }
        if !sawToken { throw HTTPParseError(.invalidTransferEncoding) }
    }

    /// Parses `chunk-size [BWS ; chunk-ext]` from `bytes[start..<end]`.
    static func parseChunkSize(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, limits: HTTPParserLimits
    ) throws -> Int {
        var size = 0
        var i = start
        while i < end, let digit = ASCII.hexValue(bytes[i]) {
            guard i - start < limits.maxChunkSizeDigits else { throw HTTPParseError(.invalidChunkSize) }
            size = size << 4 | Int(digit)
            i += 1
        }
        guard i > start else { throw HTTPParseError(.invalidChunkSize) }
        guard i < end else { return size }
        let extensionStart = i
        while i < end && (bytes[i] == .space || bytes[i] == .tab) { i += 1 }
        guard i < end, bytes[i] == UInt8(ascii: ";") else { throw HTTPParseError(.invalidChunkSize) }
        guard end - extensionStart <= limits.maxChunkExtensionLength else {
            throw HTTPParseError(.invalidChunkExtension)
        }
        while i < end {
            guard bytes[i].isFieldValueByte else { throw HTTPParseError(.invalidChunkExtension) }
            i += 1
        }
        return size
    }
}

/// Header names the parser acts on, recognised from bytes without building a String.
enum SpecialHeader {
    case none, host, contentLength, transferEncoding, connection, expect

    init(_ name: UnsafeBufferPointer<UInt8>) {
        switch name.count {
        case 4: self = SpecialHeader.matches(name, "host") ? .host : .none
        case 6: self = SpecialHeader.matches(name, "expect") ? .expect : .none
        case 10: self = SpecialHeader.matches(name, "connection") ? .connection : .none
        case 14: self = SpecialHeader.matches(name, "content-length") ? .contentLength : .none
        case 17: self = SpecialHeader.matches(name, "transfer-encoding") ? .transferEncoding : .none
        default: self = .none
        }
    }

    private static func matches(_ name: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        lowercase.withUTF8Buffer { expected in
            var i = 0
            while i < expected.count {
                if name[i].asciiLowercased != expected[i] { return false }
                i += 1
            }
            return true
        }
    }
}

extension HTTPRequestParser {
    /// Whether `byte` may appear in a `Host` value: `uri-host [":" port]` (RFC 9110 section 7.2), where a host is
    /// an IP literal in brackets, an IPv4 address or a reg-name of unreserved characters, percent-encodings and
    /// sub-delims. Userinfo's `@`, a path's `/`, `?` and `#` never appear.
    static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~%!$&'()*+,;=:[]".utf8.contains(byte)
        }
    }
}
