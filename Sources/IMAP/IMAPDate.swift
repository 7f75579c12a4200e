import MailDoor
import Time

/// A calendar date as SEARCH names one (RFC 9051 §9 `date`: `1-Feb-1994`, quoted or not), without time or zone.
public struct IMAPDate: Sendable, Hashable {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Days since 1970-01-01 (negative before).
    public var daysSinceEpoch: Int64 { CivilDate.days(year: Int64(year), month: Int64(month), day: Int64(day)) }

    static let monthNames = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]

    /// Reads `date`: `date-text` or `DQUOTE date-text DQUOTE`.
    static func read(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPDate {
        let quoted = reader.take(ASCII.quote)
        let date = try readText(&reader, fixedDay: false)
        if quoted { try reader.expect(ASCII.quote, "a closing quote") }
        return date
    }

    /// Reads `date-day "-" date-month "-" date-year`; `fixedDay` wants `date-day-fixed` (SP DIGIT or 2DIGIT).
    static func readText(_ reader: inout IMAPCommandReader, fixedDay: Bool) throws(IMAPCommandError) -> IMAPDate {
        if fixedDay { _ = reader.take(ASCII.space) }
        let dayDigits = reader.span(ASCII.isDigit)
        guard (1...2).contains(dayDigits.count) else { throw .syntax("a date such as 1-Feb-1994") }
        let day = dayDigits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        try reader.expect(UInt8(ascii: "-"), "a date such as 1-Feb-1994")
        let monthText = String(
            decoding: reader.span { $0 != UInt8(ascii: "-") && $0 != ASCII.space }.prefix(4), as: UTF8.self)
        guard let month = monthNames.firstIndex(of: monthText.uppercased()) else {
            throw .syntax("a date such as 1-Feb-1994")
        }
        try reader.expect(UInt8(ascii: "-"), "a date such as 1-Feb-1994")
        let yearDigits = reader.span(ASCII.isDigit)
        guard yearDigits.count == 4 else { throw .syntax("a four-digit year") }
        let year = yearDigits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard day >= 1, day <= daysIn(month: month + 1, year: year) else { throw .syntax("a day of the month") }
        return IMAPDate(year: year, month: month + 1, day: day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// A moment with the zone it was written in, as `INTERNALDATE` and `APPEND` carry it (RFC 9051 §9 `date-time`:
/// `"17-Jul-1996 02:44:25 -0700"`).
public struct IMAPDateTime: Sendable, Hashable {
    /// Unix seconds.
    public var seconds: Int64
    /// The zone's offset from UTC in minutes (`-0700` is -420).
    public var zoneMinutes: Int

    public init(seconds: Int64, zoneMinutes: Int = 0) {
        self.seconds = seconds
        self.zoneMinutes = zoneMinutes
    }

    /// Reads `date-time`, quoted.
    static func read(_ reader: inout IMAPCommandReader) throws(IMAPCommandError) -> IMAPDateTime {
        try reader.expect(ASCII.quote, "a date-time such as \"17-Jul-1996 02:44:25 -0700\"")
        let date = try IMAPDate.readText(&reader, fixedDay: true)
        try reader.space()
        var clock: [Int64] = []
        for position in 0..<3 {
            if position > 0 { try reader.expect(UInt8(ascii: ":"), "a time such as 02:44:25") }
            let digits = reader.span(ASCII.isDigit)
            guard digits.count == 2 else { throw .syntax("a time such as 02:44:25") }
            clock.append(digits.reduce(0) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) })
        }
        guard clock[0] < 24, clock[1] < 60, clock[2] < 61 else { throw .syntax("a time such as 02:44:25") }
        try reader.space()
        let sign: Int
        if reader.take(UInt8(ascii: "+")) {
            sign = 1
        } else if reader.take(UInt8(ascii: "-")) {
            sign = -1
        } else {
            throw .syntax("a zone such as -0700")
        }
        let zone = reader.span(ASCII.isDigit)
        guard zone.count == 4 else { throw .syntax("a zone such as -0700") }
        let hhmm = zone.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard hhmm % 100 < 60 else { throw .syntax("a zone such as -0700") }
        try reader.expect(ASCII.quote, "a closing quote")
        let zoneMinutes = sign * (hhmm / 100 * 60 + hhmm % 100)
        let local = date.daysSinceEpoch * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]
        return IMAPDateTime(seconds: local - Int64(zoneMinutes) * 60, zoneMinutes: zoneMinutes)
    }

    /// The quoted wire form, `"17-Jul-1996 02:44:25 -0700"` (the day padded with a space, as `date-day-fixed`).
    public var text: String {
        let (days, second) = CivilDate.split(seconds + Int64(zoneMinutes) * 60)
        let (year, month, day) = CivilDate.fromDays(days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let name = IMAPDate.monthNames[month - 1]
        let monthText = name.prefix(1) + name.dropFirst().lowercased()
        let offset = abs(zoneMinutes)
        return "\"\(day < 10 ? " " : "")\(day)-\(monthText)-\(year) \(two(second / 3600)):\(two(second / 60 % 60)):"
            + "\(two(second % 60)) \(zoneMinutes < 0 ? "-" : "+")\(two(Int64(offset / 60)))\(two(Int64(offset % 60)))\""
    }
}
