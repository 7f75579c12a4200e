import Testing
import Time

@Suite("Civil dates")
struct CivilDateTests {
    @Test("known days: the epoch, a leap day, the end of a century, before 1970")
    func knownDays() {
        #expect(CivilDate.fromDays(0) == (1970, 1, 1))
        #expect(CivilDate.fromDays(11_016) == (2000, 2, 29))
        #expect(CivilDate.fromDays(-1) == (1969, 12, 31))
        #expect(CivilDate.days(year: 2100, month: 3, day: 1) - CivilDate.days(year: 2100, month: 2, day: 28) == 1)
        #expect(CivilDate.days(year: 2000, month: 2, day: 29) == 11_016)
    }

    @Test("days and dates convert back and forth for every day from 1900 to 2200")
    func roundTrip() {
        for days in Int64(-25_567)...Int64(84_000) {
            let (year, month, day) = CivilDate.fromDays(days)
            #expect(CivilDate.days(year: year, month: Int64(month), day: Int64(day)) == days)
        }
    }

    @Test("UTC timestamps, after and before the epoch")
    func timestamps() {
        #expect(String(decoding: CivilDate.utcTimestamp(0), as: UTF8.self) == "1970-01-01T00:00:00Z")
        #expect(String(decoding: CivilDate.utcTimestamp(1_763_900_000), as: UTF8.self) == "2025-11-23T12:13:20Z")
        #expect(String(decoding: CivilDate.utcTimestamp(-1), as: UTF8.self) == "1969-12-31T23:59:59Z")
    }
}
