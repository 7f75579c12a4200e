extension JSONValue {
    /// Bounds on what `parse` accepts.
    public struct Limits: Sendable {
        /// Longest input in bytes. Default 64 KiB.
        public var maximumBytes: Int
        /// Deepest nesting of arrays and objects. Default 16.
        public var maximumDepth: Int

        /// Creates limits; the defaults suit JWT headers and claims.
        public init(maximumBytes: Int = 64 * 1024, maximumDepth: Int = 16) {
            self.maximumBytes = maximumBytes
            self.maximumDepth = maximumDepth
        }
    }

    /// Why `parse` refused its input. Carries the byte offset, never the input.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Byte offset where parsing stopped.
        public let offset: Int
        /// What was wrong.
        public let reason: String

        /// "invalid JSON at byte <offset>: <reason>".
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    /// Parses exactly one JSON value (RFC 8259) from UTF-8 bytes, whitespace around it allowed.
    ///
    /// Strict: no comments, trailing commas, leading zeros, lone surrogates, invalid UTF-8, control
    /// characters in strings or duplicate object keys. Integers that fit in 64 bits become `.int`;
    /// other numbers `.double`.
    /// - Throws: `JSONValue.ParseError`.
    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(ParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(ParseError) in try parse(buffer, limits: limits) }
    }

    /// Parses exactly one JSON value from UTF-8 bytes without copying them; same rules as `parse(_:limits:)`.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, limits: Limits = Limits()) throws(ParseError)
        -> JSONValue
    {
        guard bytes.count <= limits.maximumBytes else {
            throw ParseError(offset: 0, reason: "input longer than \(limits.maximumBytes) bytes")
        }
        var parser = JSONParser(bytes: bytes, maximumDepth: limits.maximumDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("trailing characters") }
        return value
    }
}

/// Recursive-descent parser over a byte buffer; depth-limited, so recursion is bounded.
private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    func error(_ reason: String) -> JSONValue.ParseError {
        JSONValue.ParseError(offset: index, reason: reason)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0a, 0x0d: index += 1
            default: return
            }
        }
    }

    mutating func expect(_ literal: StaticString) throws(JSONValue.ParseError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw error("unexpected end") }
        let start = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] {
            throw error("invalid literal")
        }
        index += count
    }

    mutating func parseValue(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    mutating func parseObject(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nested too deeply") }
        index += 1
        var members: [(String, JSONValue)] = []
        var keys = Set<String>()
        if empty(before: UInt8(ascii: "}")) { return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
            let key = try parseString()
            // Small objects (every JWT) check duplicates by a scan; large ones through a set.
            if members.count < 16 {
                guard !members.contains(where: { $0.0 == key }) else { throw error("duplicate key") }
            } else {
                if keys.isEmpty { keys = Set(members.map(\.0)) }
                guard keys.insert(key).inserted else { throw error("duplicate key") }
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue(depth: depth)))
            guard try another(before: UInt8(ascii: "}"), else: "expected ',' or '}'") else { return .object(members) }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nested too deeply") }
        index += 1
        var elements: [JSONValue] = []
        if empty(before: UInt8(ascii: "]")) { return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            guard try another(before: UInt8(ascii: "]"), else: "expected ',' or ']'") else { return .array(elements) }
        }
    }

    /// Whether the object or array just opened is empty: true past its `closer`, false before its first member or
    /// element.
    mutating func empty(before closer: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == closer else { return false }
        index += 1
        return true
    }

    /// After an object's member or an array's element: true past a `,` (another follows), false past `closer` (the
    /// object or array ends).
    /// - Throws: "unexpected end" at the end of the input, `reason` at any other byte.
    mutating func another(before closer: UInt8, else reason: String) throws(JSONValue.ParseError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end") }
        let byte = bytes[index]
        guard byte == UInt8(ascii: ",") || byte == closer else { throw error(reason) }
        index += 1
        return byte == UInt8(ascii: ",")
    }

    mutating func parseString() throws(JSONValue.ParseError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try validatedUTF8(UnsafeBufferPointer(rebasing: bytes[start..<index]), at: start)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in string") }
            index += 1
        }
        var scalars = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let text = try scalars.withUnsafeBufferPointer { buffer throws(JSONValue.ParseError) in
                    try validatedUTF8(buffer, at: start)
                }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unexpected end") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0c)
                case UInt8(ascii: "n"): scalars.append(0x0a)
                case UInt8(ascii: "r"): scalars.append(0x0d)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = UInt32(try hex4())
                    if code >= 0xD800, code < 0xDC00 {
                        guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("lone surrogate") }
                        index += 2
                        let low = UInt32(try hex4())
                        guard low >= 0xDC00, low < 0xE000 else { throw error("lone surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if code >= 0xDC00, code < 0xE000 {
                        throw error("lone surrogate")
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid escape") }
                    scalars.append(contentsOf: UTF8.encode(scalar)!)
                default:
                    throw error("invalid escape")
                }
            default:
                if byte < 0x20 { throw error("control character in string") }
                scalars.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    mutating func hex4() throws(JSONValue.ParseError) -> UInt16 {
        guard bytes.count - index >= 4 else { throw error("unexpected end") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    func validatedUTF8(_ buffer: UnsafeBufferPointer<UInt8>, at offset: Int) throws(JSONValue.ParseError) -> String {
        var iterator = buffer.makeIterator()
        var decoder = UTF8()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: break loop
            case .error: throw JSONValue.ParseError(offset: offset, reason: "invalid UTF-8")
            }
        }
        return String(decoding: buffer, as: UTF8.self)
    }

    mutating func parseNumber() throws(JSONValue.ParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("leading zero") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        guard index - start <= 64 else { throw error("number too long") }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let value = Int64(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { throw error("number out of range") }
        return .double(value)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

extension JSONValue.Limits {
    /// How deep a request body may nest: deeper than any body a client of Postern's APIs sends (a JMAP filter
    /// nests a few levels), shallow enough that parsing it is cheap.
    public static let requestBodyDepth = 32

    /// The one rule for request bodies on every surface (Mail.td, agents, OAuth registration, remote hash, JMAP,
    /// MCP): duplicate keys refused (as ``JSONValue/parse(_:limits:)`` always does), nesting at most
    /// ``requestBodyDepth``, at most `maximumBytes` (the route's body limit).
    public static func requestBody(maximumBytes: Int) -> Self {
        Self(maximumBytes: maximumBytes, maximumDepth: requestBodyDepth)
    }
}
