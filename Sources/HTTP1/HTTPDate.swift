/// IMF-fixdate formatting for the `Date` header (`Sun, 06 Nov 1994 08:49:37 GMT`), without Foundation.
public enum HTTPDate {
    private static let dayNames: [StaticString] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let monthNames: [StaticString] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// The 29 bytes of the IMF-fixdate for a Unix time in seconds (UTC).
    /// - Parameter unixSeconds: seconds since 1970-01-01T00:00:00Z; negative times are clamped to 0.
    public static func imfFixdate(unixSeconds: Int64) -> [UInt8] {
        let seconds = max(0, unixSeconds)
        let days = seconds / 86_400
        let secondOfDay = Int(seconds % 86_400)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        var out = [UInt8]()
        out.reserveCapacity(29)
        dayNames[Int(days % 7)].withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(contentsOf: ", ".utf8)
        appendTwoDigits(day, to: &out)
        out.append(.space)
        monthNames[month - 1].withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(.space)
        appendTwoDigits(Int(year / 100), to: &out)
        appendTwoDigits(Int(year % 100), to: &out)
        out.append(.space)
        appendTwoDigits(secondOfDay / 3600, to: &out)
        out.append(.colon)
        appendTwoDigits(secondOfDay / 60 % 60, to: &out)
        out.append(.colon)
        appendTwoDigits(secondOfDay % 60, to: &out)
        out.append(contentsOf: " GMT".utf8)
        return out
    }

    private static func appendTwoDigits(_ value: Int, to out: inout [UInt8]) {
        out.append(UInt8(0x30 + value / 10 % 10))
        out.append(UInt8(0x30 + value % 10))
    }

    /// Gregorian (year, month 1...12, day 1...31) for days since 1970-01-01 (Howard Hinnant's algorithm).
    static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
