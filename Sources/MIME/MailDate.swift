import Foundation

/// RFC 5322 date-times (`Mon, 15 Jun 2025 15:06:40 +0000`), with the obsolete forms mail still carries: no
/// day name, two-digit years, zone names (`GMT`, `UT`, `EST`, ...), a missing seconds field, comments.
enum MailDate {
    static func parse(_ text: String) -> Int64? {
        let cleaned = AddressList.withoutComments(text).replacingOccurrences(of: ",", with: " ")
        var words = cleaned.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if let first = words.first, Int(first) == nil { words.removeFirst() }  // the day name
        guard words.count >= 4, let day = Int(words[0]), (1...31).contains(day),
            let month = months.firstIndex(of: words[1].lowercased().prefix(3).description), var year = Int(words[2])
        else { return nil }
        if year < 50 { year += 2000 } else if year < 1000 { year += 1900 }
        let clock = words[3].split(separator: ":").map { Int($0) }
        guard clock.count >= 2, clock.allSatisfy({ $0 != nil }) else { return nil }
        let (hour, minute, second) = (clock[0]!, clock[1]!, clock.count > 2 ? clock[2]! : 0)
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        let offset = words.count > 4 ? zoneOffset(words[4]) : 0
        return days(year: year, month: month + 1, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
            - Int64(offset)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds east of UTC; unknown zones count as UTC (RFC 5322 4.3).
    private static func zoneOffset(_ zone: String) -> Int {
        if let sign = zone.first, sign == "+" || sign == "-", zone.count == 5, let value = Int(zone.dropFirst()) {
            return (sign == "-" ? -1 : 1) * ((value / 100) * 3600 + (value % 100) * 60)
        }
        let named = ["EDT": -4, "EST": -5, "CDT": -5, "CST": -6, "MDT": -6, "MST": -7, "PDT": -7, "PST": -8]
        return (named[zone.uppercased()] ?? 0) * 3600
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return Int64(era * 146_097 + doe - 719_468)
    }
}
