import Testing

@testable import HTTP1

@Suite("[UInt8] appending: reserveMore, appendLiteral")
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
}
