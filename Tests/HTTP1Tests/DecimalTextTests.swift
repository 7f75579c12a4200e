import Testing

@testable import HTTP1

@Suite("Decimal text appended as bytes")
struct DecimalTextTests {
    @Test(
        "writes what String(value) writes",
        arguments: [0, 7, 10, 99, 100, 1_000_000_007, -1, -42, .max, .min] as [Int64])
    func asString(value: Int64) {
        var out: [UInt8] = [0x78]
        out.appendDecimal(value)
        #expect(String(decoding: out, as: UTF8.self) == "x" + String(value))
    }

    @Test("DecimalText.write gives String(value)'s digits and their count, from 0 to UInt64.max")
    func written() {
        var values: [UInt64] = Array(0..<2_000) + [.max, .max - 1, 1 << 63]
        var power: UInt64 = 10
        while power < UInt64.max / 10 {
            values += [power - 1, power, power + 1]
            power *= 10
        }
        for value in values {
            var buffer = [UInt8](repeating: 0xEE, count: 24)
            let count = buffer.withUnsafeMutableBufferPointer { DecimalText.write(value, to: $0.baseAddress!) }
            let expected = Array(String(value).utf8)
            if Array(buffer[0..<count]) != expected || buffer[count...].contains(where: { $0 != 0xEE }) {
                Issue.record("\(value): \(String(decoding: buffer[0..<count], as: UTF8.self))")
            }
        }
    }
}
