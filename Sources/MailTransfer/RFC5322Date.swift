import HTTP1

/// RFC 5322 §3.3 date-times in UTC (`Wed, 25 Nov 2026 23:00:00 +0000`) from Unix seconds, over HTTP1's `CivilDate`
/// (the server's one calendar).
enum RFC5322Date {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func format(_ seconds: Int64) -> String {
        let (dayNumber, secondOfDay) = CivilDate.split(seconds)
        let (year, month, day) = CivilDate.fromDays(dayNumber)
        let weekday = days[Int(((dayNumber % 7) + 7) % 7)]
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let clock = "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        return "\(weekday), \(two(Int64(day))) \(months[month - 1]) \(year) \(clock) +0000"
    }
}
