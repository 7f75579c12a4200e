import Time

/// IMF-fixdate formatting for the `Date` header (`Sun, 06 Nov 1994 08:49:37 GMT`): RFC 5322's date-time in UTC with
/// `GMT` for the zone (RFC 9110 §5.6.7), from Time's one calendar.
public enum HTTPDate {
    /// The 29 bytes of the IMF-fixdate for a Unix time in seconds (UTC).
    /// - Parameter unixSeconds: seconds since 1970-01-01T00:00:00Z; negative times are clamped to 0.
    public static func imfFixdate(unixSeconds: Int64) -> [UInt8] {
        RFC5322Date.bytes(max(0, unixSeconds), zone: "GMT")
    }
}
