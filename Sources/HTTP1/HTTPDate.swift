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
        let (year, month, day) = CivilDate.fromDays(days)
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
}
