/// RFC 3339 timestamps: written in UTC (`2025-01-15T10:30:00Z`) from Unix seconds, read with any offset and
/// optional fractions of a second; without Foundation.
public enum RFC3339 {
    /// Formats `seconds` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`.
    public static func format(_ seconds: Int64) -> String {
        String(decoding: CivilDate.utcTimestamp(seconds), as: UTF8.self)
    }

    /// Unix seconds of `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)`, fractions dropped; nil for anything else.
    public static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int64? {
            guard start + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[start..<(start + count)] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"), bytes[13] == UInt8(ascii: ":"),
            bytes[16] == UInt8(ascii: ":"), let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset: Int64 = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, bytes[index + 3] == UInt8(ascii: ":"), let h = number(index + 1, 2),
                let m = number(index + 4, 2), h < 24, m < 60
            else { return nil }
            offset = (h * 3600 + m * 60) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
        default:
            return nil
        }
        let days = CivilDate.days(year: year, month: month, day: day)
        return days * 86_400 + hour * 3600 + minute * 60 + second - offset
    }
}
