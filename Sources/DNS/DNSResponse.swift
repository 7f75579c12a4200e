/// A response message read for the question it answers (RFC 1035 section 4.1): its id, its flags and the answer
/// records of the asked type. Other records (CNAME chains' own entries, authority, additional) are skipped.
public struct DNSResponse: Sendable, Equatable {
    /// TC: the answer did not fit in the datagram; ask again over TCP.
    public let truncated: Bool
    public let answer: DNSAnswer

    /// Reads `bytes` as the response to `query`.
    /// - Throws: `DNSError.malformedResponse` for a message that is not a response to it, or does not parse.
    public init(_ bytes: [UInt8], answering query: DNSQuery) throws {
        var reader = DNSReader(bytes)
        let id = try reader.u16()
        let flags = try reader.u16()
        let questions = try reader.u16()
        let answers = try reader.u16()
        _ = try reader.u16()  // authority
        _ = try reader.u16()  // additional
        guard id == query.id, flags & 0x8000 != 0, questions == 1 else { throw DNSError.malformedResponse }
        truncated = flags & 0x0200 != 0
        // The question must come back in the exact case it was asked (0x20); answers' names may differ in case.
        let name = try reader.name(preservingCase: true)
        guard name == query.wireName, try reader.u16() == query.type.rawValue, try reader.u16() == 1 else {
            throw DNSError.malformedResponse
        }
        switch UInt8(flags & 0x000F) {
        case 0: break
        case 3:
            answer = .noSuchName
            return
        case let code:
            answer = .failed(responseCode: code)
            return
        }
        var records: [DNSRecord] = []
        for _ in 0..<answers {
            if truncated && reader.isAtEnd { break }
            _ = try reader.name()
            let type = try reader.u16()
            _ = try reader.u16()  // class
            _ = try reader.u32()  // TTL
            let length = Int(try reader.u16())
            let end = reader.position + length
            guard end <= bytes.count else { throw DNSError.malformedResponse }
            switch type {
            case DNSRecordType.txt.rawValue where query.type == .txt:
                var text: [UInt8] = []
                while reader.position < end {
                    let count = Int(try reader.u8())
                    guard reader.position + count <= end else { throw DNSError.malformedResponse }
                    text.append(contentsOf: try reader.bytes(count))
                }
                records.append(.txt(String(decoding: text, as: UTF8.self)))
            case DNSRecordType.mx.rawValue where query.type == .mx:
                let preference = try reader.u16()
                let exchange = try reader.name()
                guard reader.position == end else { throw DNSError.malformedResponse }
                records.append(.mx(preference: preference, exchange: exchange))
            case DNSRecordType.a.rawValue where query.type == .a:
                guard length == 4 else { throw DNSError.malformedResponse }
                records.append(.a(Array(try reader.bytes(4))))
            case DNSRecordType.aaaa.rawValue where query.type == .aaaa:
                guard length == 16 else { throw DNSError.malformedResponse }
                records.append(.aaaa(Array(try reader.bytes(16))))
            default:
                break
            }
            reader.position = end
        }
        answer = .records(records)
    }
}

/// A cursor over a message's bytes; every read is bounds-checked.
struct DNSReader {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func u8() throws -> UInt8 {
        guard position < bytes.count else { throw DNSError.malformedResponse }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16() throws -> UInt16 { UInt16(try u8()) << 8 | UInt16(try u8()) }

    mutating func u32() throws -> UInt32 { UInt32(try u16()) << 16 | UInt32(try u16()) }

    mutating func bytes(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, position + count <= bytes.count else { throw DNSError.malformedResponse }
        defer { position += count }
        return bytes[position..<position + count]
    }

    /// A possibly compressed name (RFC 1035 section 4.1.4), lower-cased unless `preservingCase`, without the
    /// trailing dot; the cursor ends after the name's bytes where it started. Pointers must point backwards, so a
    /// loop cannot be built.
    mutating func name(preservingCase: Bool = false) throws -> String {
        var labels: [String] = []
        var length = 0
        var cursor = position
        var resumeAt: Int?
        while true {
            guard cursor < bytes.count else { throw DNSError.malformedResponse }
            let count = Int(bytes[cursor])
            if count == 0 {
                cursor += 1
                break
            }
            if count & 0xC0 == 0xC0 {
                guard cursor + 1 < bytes.count else { throw DNSError.malformedResponse }
                let target = (count & 0x3F) << 8 | Int(bytes[cursor + 1])
                guard target < cursor else { throw DNSError.malformedResponse }
                if resumeAt == nil { resumeAt = cursor + 2 }
                cursor = target
                continue
            }
            guard count <= 63, cursor + 1 + count <= bytes.count else { throw DNSError.malformedResponse }
            length += count + 1
            guard length <= 255 else { throw DNSError.malformedResponse }
            let label = String(decoding: bytes[cursor + 1..<cursor + 1 + count], as: UTF8.self)
            labels.append(preservingCase ? label : label.lowercased())
            cursor += 1 + count
        }
        position = resumeAt ?? cursor
        return labels.joined(separator: ".")
    }
}
