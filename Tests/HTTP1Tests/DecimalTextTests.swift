import HTTP1
import Testing

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
}
