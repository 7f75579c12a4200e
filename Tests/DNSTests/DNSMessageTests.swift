import Testing

@testable import DNS

/// Messages built by hand from RFC 1035 section 4.1, as a resolver sends them.
@Suite("DNS messages")
struct DNSMessageTests {
    static func header(_ id: UInt16, _ flags: UInt16, _ answers: UInt16) -> [UInt8] {
        [UInt8(id >> 8), UInt8(id & 0xFF), UInt8(flags >> 8), UInt8(flags & 0xFF), 0, 1, 0, UInt8(answers), 0, 0, 0, 0]
    }
    /// example.com, at offset 12 of every message below.
    static let exampleCom: [UInt8] = [7] + Array("example".utf8) + [3] + Array("com".utf8) + [0]

    static func response(
        _ query: DNSQuery, flags: UInt16 = 0x8180, answers: [[UInt8]] = []
    ) -> [UInt8] {
        header(query.id, flags, UInt16(answers.count)) + exampleCom
            + [0, UInt8(query.type.rawValue), 0, 1] + answers.joined()
    }

    /// An answer record whose owner is a pointer to the question's name (offset 12).
    static func record(type: DNSRecordType, _ data: [UInt8]) -> [UInt8] {
        [0xC0, 12, 0, UInt8(type.rawValue), 0, 1, 0, 0, 0x0E, 0x10, UInt8(data.count >> 8), UInt8(data.count & 0xFF)]
            + data
    }

    @Test("a query is the header with RD, one question of class IN, the name as labels")
    func queryBytes() throws {
        let query = try DNSQuery(id: 0xBEEF, name: "Example.COM.", type: .txt)
        #expect(query.name == "example.com")
        #expect(query.bytes == [0xBE, 0xEF, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0] + Self.exampleCom + [0, 16, 0, 1])
    }

    @Test("0x20: the mask upper-cases the name's letters on the wire; only that exact case answers the query")
    func caseMask() throws {
        // Bits 0, 2 and 8: "E", "a" of example, and "C" of com ("example.com": byte 8 is "c").
        let query = try DNSQuery(id: 0xBEEF, name: "example.com", type: .txt, caseMask: [0b0000_0101, 0b0000_0001])
        #expect(query.name == "example.com" && query.wireName == "ExAmple.Com")
        #expect(Array(query.bytes[13..<20]) == Array("ExAmple".utf8))
        var echoed = Self.response(query)
        echoed.replaceSubrange(12..<(12 + Self.exampleCom.count), with: DNSQuery.encode("ExAmple.Com"))
        #expect(try DNSResponse(echoed, answering: query).answer == .records([]))
        for other in ["example.com", "EXAMPLE.COM", "Example.Com"] {
            var forged = echoed
            forged.replaceSubrange(12..<(12 + Self.exampleCom.count), with: DNSQuery.encode(other))
            #expect(throws: DNSError.malformedResponse) { try DNSResponse(forged, answering: query) }
        }
        // Digits, hyphens and underscores have no case; a random query keeps the name's letters.
        let marked = try DNSQuery(id: 1, name: "_dmarc.a-1.test", type: .txt, caseMask: [0xFF, 0xFF])
        #expect(marked.wireName == "_DMARC.A-1.TEST")
        #expect(try DNSQuery.random(name: "Example.COM", type: .mx).wireName.lowercased() == "example.com")
    }

    @Test("names that cannot be asked are refused before anything is sent", arguments: [
        "", ".", "a..b", String(repeating: "a", count: 64) + ".com", "sp ace.com", "ü.com",
        (0..<64).map { _ in "abc" }.joined(separator: "."),
    ])
    func invalidNames(_ name: String) {
        #expect(throws: DNSError.invalidName) { try DNSQuery(id: 1, name: name, type: .mx) }
    }

    @Test("TXT: the character-strings of each record joined; records of other types skipped")
    func txt() throws {
        let query = try DNSQuery(id: 7, name: "example.com", type: .txt)
        let bytes = Self.response(query, answers: [
            Self.record(type: .txt, [5] + Array("hello".utf8) + [6] + Array(" world".utf8)),
            Self.record(type: .mx, [0, 10, 0xC0, 12]),
            Self.record(type: .txt, [0]),
        ])
        let response = try DNSResponse(bytes, answering: query)
        #expect(!response.truncated)
        #expect(response.answer == .records([.txt("hello world"), .txt("")]))
    }

    @Test("MX: preference and a compressed exchange, lower-cased")
    func mx() throws {
        let query = try DNSQuery(id: 9, name: "example.com", type: .mx)
        let exchange: [UInt8] = [2] + Array("MX".utf8) + [0xC0, 12]
        let response = try DNSResponse(
            Self.response(query, answers: [Self.record(type: .mx, [0, 10] + exchange)]), answering: query)
        #expect(response.answer == .records([.mx(preference: 10, exchange: "mx.example.com")]))
    }

    @Test("A and AAAA: the address bytes; a record of the wrong length is malformed")
    func addresses() throws {
        let a = try DNSQuery(id: 11, name: "example.com", type: .a)
        let four = try DNSResponse(Self.response(a, answers: [Self.record(type: .a, [192, 0, 2, 1])]), answering: a)
        #expect(four.answer == .records([.a([192, 0, 2, 1])]))
        let aaaa = try DNSQuery(id: 12, name: "example.com", type: .aaaa)
        let v6: [UInt8] = [0x20, 0x01, 0x0D, 0xB8] + Array(repeating: 0, count: 11) + [1]
        let sixteen = try DNSResponse(
            Self.response(aaaa, answers: [Self.record(type: .aaaa, v6), Self.record(type: .a, [1, 2, 3, 4])]),
            answering: aaaa)
        #expect(sixteen.answer == .records([.aaaa(v6)]))
        #expect(throws: DNSError.malformedResponse) {
            try DNSResponse(Self.response(a, answers: [Self.record(type: .a, [1, 2, 3])]), answering: a)
        }
    }

    @Test("NXDOMAIN is a negative answer; SERVFAIL and REFUSED are unknown")
    func responseCodes() throws {
        let query = try DNSQuery(id: 3, name: "example.com", type: .txt)
        #expect(try DNSResponse(Self.response(query, flags: 0x8183), answering: query).answer == .noSuchName)
        #expect(
            try DNSResponse(Self.response(query, flags: 0x8182), answering: query).answer
                == .failed(responseCode: 2))
        #expect(
            try DNSResponse(Self.response(query, flags: 0x8185), answering: query).answer
                == .failed(responseCode: 5))
    }

    @Test("TC says the answer was cut; a cut answer section is read as far as it goes")
    func truncated() throws {
        let query = try DNSQuery(id: 4, name: "example.com", type: .txt)
        var bytes = Self.response(query, flags: 0x8380)
        bytes[7] = 3  // claims three answers, carries none
        let response = try DNSResponse(bytes, answering: query)
        #expect(response.truncated)
        #expect(response.answer == .records([]))
    }

    @Test("another id, another question, a query instead of a response, a forward or looping pointer: malformed")
    func malformed() throws {
        let query = try DNSQuery(id: 5, name: "example.com", type: .txt)
        let good = Self.response(query, answers: [Self.record(type: .txt, [1, 0x41])])
        #expect(try DNSResponse(good, answering: query).answer == .records([.txt("A")]))
        var otherID = good
        otherID[1] = 6
        var notResponse = good
        notResponse[2] = 0x01
        var otherType = good
        otherType[12 + Self.exampleCom.count + 1] = 15
        var forwardPointer = good
        forwardPointer[12 + Self.exampleCom.count + 4 + 1] = 200
        var selfPointer = good
        selfPointer[12 + Self.exampleCom.count + 4 + 1] = UInt8(12 + Self.exampleCom.count + 4)
        var overlong = good
        overlong[overlong.count - 3] = 0xFF  // rdlength past the end
        for bytes in [otherID, notResponse, otherType, forwardPointer, selfPointer, overlong, Array(good.prefix(20)), []] {
            #expect(throws: DNSError.malformedResponse) { try DNSResponse(bytes, answering: query) }
        }
    }

    @Test("every prefix and every one-byte change of a response parses or is refused, never traps")
    func mutations() throws {
        let query = try DNSQuery(id: 5, name: "example.com", type: .mx)
        let good = Self.response(
            query, answers: [Self.record(type: .mx, [0, 10, 2] + Array("mx".utf8) + [0xC0, 12])])
        for end in 0...good.count { _ = try? DNSResponse(Array(good.prefix(end)), answering: query) }
        for index in good.indices {
            for value: UInt8 in [0, 1, 0x3F, 0x40, 0xC0, 0xFF] {
                var bytes = good
                bytes[index] = value
                _ = try? DNSResponse(bytes, answering: query)
            }
        }
    }

    @Test("resolver addresses: host:port, [v6]:port, a bare literal, and resolv.conf's first usable nameserver")
    func serverAddresses() {
        #expect(DNSServerAddress("127.0.0.1:5353") == DNSServerAddress("127.0.0.1:5353"))
        #expect(DNSServerAddress("127.0.0.1:5353")?.port == 5353)
        #expect(DNSServerAddress("[::1]:53")?.host == "::1")
        #expect(DNSServerAddress("::1")?.port == 53)
        #expect(DNSServerAddress("10.0.0.2")?.description == "10.0.0.2:53")
        #expect(DNSServerAddress("dns.example:53") == nil)
        #expect(DNSServerAddress("127.0.0.1:0") == nil)
        let conf = "# generated\nsearch example\nnameserver fe80::1%eth0\nnameserver 192.0.2.53\nnameserver 192.0.2.54\n"
        #expect(DNSServerAddress.firstNameserver(inResolvConf: conf)?.host == "192.0.2.53")
        #expect(DNSServerAddress.firstNameserver(inResolvConf: "") == nil)
    }
}
