import Testing
import Time

@Suite("RFC 3339 times")
struct RFC3339Tests {
    @Test("written in UTC, read with any offset and fractions dropped")
    func roundTrip() {
        #expect(RFC3339.format(1_736_937_000) == "2025-01-15T10:30:00Z")
        #expect(RFC3339.parse("2025-01-15T10:30:00Z") == 1_736_937_000)
        #expect(RFC3339.parse("2025-01-15t10:30:00.123z") == 1_736_937_000)
        #expect(RFC3339.parse("2025-01-15T12:30:00+02:00") == 1_736_937_000)
        #expect(RFC3339.parse("2025-01-15T10:30:00") == nil)
        #expect(RFC3339.parse("2025-13-15T10:30:00Z") == nil)
        #expect(RFC3339.parse("2025-01-15T10:30:00.Z") == nil)
    }
}
