import Testing

@testable import SocketServer

/// Queued output: bytes appended or written in place, sent in parts, the room reused once drained.
@Suite("OutputBuffer")
struct OutputBufferTests {
    private func unsent(_ buffer: OutputBuffer) -> String {
        buffer.withUnsentBytes { String(decoding: $0, as: UTF8.self) }
    }

    @Test(
        "appended and written-in-place bytes go out in order, in parts; a writer given spare room adds its bytes only")
    func orderAndParts() {
        var buffer = OutputBuffer()
        buffer.append(Array("one ".utf8))
        buffer.withAppendableRoom(atMost: 100) { room in
            _ = room.initialize(from: "two ".utf8)
            return 4
        }
        buffer.append(Array("three".utf8))
        #expect(unsent(buffer) == "one two three" && buffer.unsentCount == 13)
        buffer.consume(5)
        #expect(unsent(buffer) == "wo three" && !buffer.isEmpty)
        buffer.append(Array("!".utf8))
        buffer.consume(8)
        #expect(unsent(buffer) == "!")
        buffer.consume(1)
        #expect(buffer.isEmpty && unsent(buffer).isEmpty)
    }

    @Test("a drained buffer reuses its room; one grown past the retained size gives it back")
    func roomReused() {
        var buffer = OutputBuffer()
        buffer.append([UInt8](repeating: 0x61, count: 1000))
        buffer.consume(1000)
        let room = buffer.bytes.count
        buffer.append([UInt8](repeating: 0x62, count: 900))
        #expect(buffer.bytes.count == room && unsent(buffer) == String(repeating: "b", count: 900))
        buffer.consume(900)
        buffer.append([UInt8](repeating: 0x63, count: buffer.retainedCapacity + 1))
        #expect(buffer.unsentCount == buffer.retainedCapacity + 1)
        buffer.consume(buffer.unsentCount)
        #expect(buffer.isEmpty && buffer.bytes.isEmpty)
    }
}
