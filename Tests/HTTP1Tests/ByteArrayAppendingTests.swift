import Testing

@testable import HTTP1

@Suite("[UInt8] appending: reserveMore, appendLiteral, appendWriting")
struct ByteArrayAppendingTests {
    @Test("makes room for what is asked without moving a buffer that has it")
    func room() {
        var bytes: [UInt8] = []
        bytes.reserveMore(100)
        #expect(bytes.capacity >= 100)
        let capacity = bytes.capacity
        bytes.append(contentsOf: repeatElement(7, count: 60))
        bytes.reserveMore(capacity - 60)
        #expect(bytes.capacity == capacity)
        bytes.reserveMore(capacity)
        #expect(bytes.capacity >= 60 + capacity)
        #expect(bytes == Array(repeating: 7, count: 60))
    }

    @Test("a buffer gathering 100,000 appends reallocates a few dozen times, not at every full buffer")
    func geometric() {
        var bytes: [UInt8] = []
        var reallocations = 0
        var capacity = bytes.capacity
        for _ in 0..<100_000 {
            bytes.reserveMore(130)
            if bytes.capacity != capacity {
                reallocations += 1
                capacity = bytes.capacity
            }
            bytes.append(contentsOf: repeatElement(0x61, count: 100))
        }
        // 10 MB in doublings from 130 bytes: about 17. Exact reservations would reallocate ~77,000 times.
        #expect(reallocations < 40)
        #expect(bytes.count == 10_000_000)
    }

    @Test("appendLiteral appends a literal's UTF-8 bytes after what is there")
    func literal() {
        var bytes: [UInt8] = [0x41]
        bytes.appendLiteral(" info ")
        bytes.appendLiteral("")
        bytes.appendLiteral("é")
        #expect(bytes == [0x41] + Array(" info é".utf8))
    }

    @Test("appendWriting appends exactly what was written, in room on the stack or on the heap")
    func appendWriting() {
        for size in [0, 1, 100, 1000, 1024, 1025, 5000] {
            var out = Array("head:".utf8)
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            out.appendWriting(atMost: size + 30) { writer in
                writer.literal("<")
                payload.withUnsafeBufferPointer { writer.bytes($0) }
                writer.decimal(UInt64(size))
                writer.byte(UInt8(ascii: ">"))
                #expect(writer.count == size + 2 + String(size).utf8.count)
            }
            #expect(out == Array("head:<".utf8) + payload + Array("\(size)>".utf8))
        }
    }

    @Test("writing past the room made traps rather than writing over memory")
    func overrun() async {
        await #expect(processExitsWith: .failure) {
            var out: [UInt8] = []
            out.appendWriting(atMost: 3) { $0.literal("four") }
        }
        await #expect(processExitsWith: .failure) {
            var out: [UInt8] = []
            out.appendWriting(atMost: 19) { $0.decimal(1) }  // a decimal needs room for 20 digits
        }
    }
}
