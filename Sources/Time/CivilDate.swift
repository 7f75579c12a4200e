/// Gregorian dates and days since 1970-01-01, both ways (Howard Hinnant's algorithms), for every timestamp the
/// server writes or reads without Foundation: the `Date` header, RFC 3339 and RFC 5322 times, access-log lines. The
/// server's one calendar.
public enum CivilDate {
    /// (year, month 1...12, day 1...31) of `daysSinceEpoch` (negative before 1970).
    public static func fromDays(_ daysSinceEpoch: Int64) -> (year: Int64, month: Int, day: Int) {
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

    /// Days since 1970-01-01 of `year`-`month`-`day` (month 1...12; the day is not checked against the month).
    public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// (days since 1970-01-01, second of that day) of Unix `seconds`, flooring before 1970.
    public static func split(_ seconds: Int64) -> (days: Int64, secondOfDay: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return (days, seconds - days * 86_400)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` of Unix `seconds` as bytes: the one formatter behind RFC 3339 output, log lines and
    /// access-log lines.
    public static func utcTimestamp(_ seconds: Int64) -> [UInt8] {
        let (days, secondOfDay) = split(seconds)
        let (year, month, day) = fromDays(days)
        var out: [UInt8] = []
        out.reserveCapacity(20)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(year, 4)
        out.append(UInt8(ascii: "-"))
        digits(Int64(month), 2)
        out.append(UInt8(ascii: "-"))
        digits(Int64(day), 2)
        out.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2)
        out.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2)
        out.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        out.append(UInt8(ascii: "Z"))
        return out
    }
}
