/// RFC 5322 §3.3 date-times: written in UTC (`Wed, 25 Nov 2026 23:00:00 +0000`) from Unix seconds, for the messages
/// and trace fields the server writes and HTTP's IMF-fixdate (the same form with `GMT`); read with the obsolete forms
/// mail still carries. Without Foundation, over ``CivilDate``.
public enum RFC5322Date {
    private static let dayNames: [StaticString] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let monthNames: [StaticString] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// `Thu, 01 Jan 1970 00:00:00 +0000` of Unix `seconds` (before 1970 too).
    public static func format(_ seconds: Int64) -> String {
        String(decoding: bytes(seconds, zone: "+0000"), as: UTF8.self)
    }

    /// The bytes of the date-time of Unix `seconds` in UTC: day name, two-digit day, month name, the year in at least
    /// four digits, the time, then `zone` as given.
    /// - Parameters:
    ///   - seconds: seconds since 1970-01-01T00:00:00Z, floored to the day before 1970.
    ///   - zone: what stands for UTC: `+0000` in mail, `GMT` in HTTP's IMF-fixdate.
    public static func bytes(_ seconds: Int64, zone: StaticString) -> [UInt8] {
        let (dayNumber, secondOfDay) = CivilDate.split(seconds)
        let (year, month, day) = CivilDate.fromDays(dayNumber)
        var out = [UInt8]()
        out.reserveCapacity(26 + zone.utf8CodeUnitCount)
        dayNames[Int((dayNumber % 7 + 7) % 7)].withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(contentsOf: ", ".utf8)
        appendTwoDigits(Int64(day), to: &out)
        out.append(UInt8(ascii: " "))
        monthNames[month - 1].withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(UInt8(ascii: " "))
        if (0..<1000).contains(year) { out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: 4 - String(year).utf8.count)) }
        out.append(contentsOf: String(year).utf8)
        out.append(UInt8(ascii: " "))
        appendTwoDigits(secondOfDay / 3600, to: &out)
        out.append(UInt8(ascii: ":"))
        appendTwoDigits(secondOfDay / 60 % 60, to: &out)
        out.append(UInt8(ascii: ":"))
        appendTwoDigits(secondOfDay % 60, to: &out)
        out.append(UInt8(ascii: " "))
        zone.withUTF8Buffer { out.append(contentsOf: $0) }
        return out
    }

    private static func appendTwoDigits(_ value: Int64, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "0") + UInt8(value / 10 % 10))
        out.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// Unix seconds of a date-time with its comments already removed, in the current or the obsolete forms: no day
    /// name, two-digit years (`< 50` in 2000s, else 1900s), three-digit years (+1900), no seconds, `+hhmm`/`-hhmm`
    /// zones or the US zone names; an unknown zone counts as UTC (RFC 5322 §4.3). Nil for anything else.
    public static func parse(_ text: String) -> Int64? {
        var words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).map(String.init)
        if let first = words.first, Int(first) == nil { words.removeFirst() }  // the day name
        guard words.count >= 4, let day = Int(words[0]), (1...31).contains(day),
            let month = months.firstIndex(of: words[1].lowercased().prefix(3).description), var year = Int(words[2])
        else { return nil }
        if year < 50 { year += 2000 } else if (0..<1000).contains(year) { year += 1900 }
        let clock = words[3].split(separator: ":").map { Int($0) }
        guard clock.count >= 2, clock.allSatisfy({ $0 != nil }) else { return nil }
        let (hour, minute, second) = (clock[0]!, clock[1]!, clock.count > 2 ? clock[2]! : 0)
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        let offset = words.count > 4 ? zoneOffset(words[4]) : 0
        // A year past what Int64 seconds reach is nil, where the day count or the seconds would overflow and trap: a
        // received message's Date field is the sender's to write.
        guard (-292_277_022_657...292_277_026_596).contains(year) else { return nil }
        let days = CivilDate.days(year: Int64(year), month: Int64(month + 1), day: Int64(day))
        let (midnight, overflow) = days.multipliedReportingOverflow(by: 86_400)
        let (time, beyond) = midnight.addingReportingOverflow(Int64(hour * 3600 + minute * 60 + second - offset))
        guard !overflow, !beyond else { return nil }
        return time
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds east of UTC; unknown zones count as UTC (RFC 5322 §4.3).
    private static func zoneOffset(_ zone: String) -> Int {
        if let sign = zone.first, sign == "+" || sign == "-", zone.count == 5, let value = Int(zone.dropFirst()) {
            return (sign == "-" ? -1 : 1) * ((value / 100) * 3600 + (value % 100) * 60)
        }
        let named = ["EDT": -4, "EST": -5, "CDT": -5, "CST": -6, "MDT": -6, "MST": -7, "PDT": -7, "PST": -8]
        return (named[zone.uppercased()] ?? 0) * 3600
    }
}
