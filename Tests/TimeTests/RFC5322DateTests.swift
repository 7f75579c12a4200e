import Testing
import Time

@Suite("RFC 5322 dates")
struct RFC5322DateTests {
    @Test("RFC 5322 dates: the epoch, a leap day, before the epoch")
    func dates() {
        #expect(RFC5322Date.format(0) == "Thu, 01 Jan 1970 00:00:00 +0000")
        #expect(RFC5322Date.format(951_782_400) == "Tue, 29 Feb 2000 00:00:00 +0000")
        #expect(RFC5322Date.format(-86_400) == "Wed, 31 Dec 1969 00:00:00 +0000")
        #expect(RFC5322Date.format(1_795_602_199) == "Wed, 25 Nov 2026 10:23:19 +0000")
    }

    @Test("HTTP's IMF-fixdate is the same date-time with GMT")
    func fixdate() {
        #expect(String(decoding: RFC5322Date.bytes(784_111_777, zone: "GMT"), as: UTF8.self)
            == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test("read back: the current form, an offset, and the obsolete forms mail still carries")
    func parse() {
        #expect(RFC5322Date.parse("Wed, 25 Nov 2026 10:23:19 +0000") == 1_795_602_199)
        #expect(RFC5322Date.parse("25 Nov 2026 11:23:19 +0100") == 1_795_602_199)
        #expect(RFC5322Date.parse("Wed, 25 Nov 26 05:23:19 EST") == 1_795_602_199)
        #expect(RFC5322Date.parse("Thu, 1 Jan 70 00:00 GMT") == 0)
        #expect(RFC5322Date.parse("Sun, 06 Nov 1994 08:49:37 XYZ") == 784_111_777)
        #expect(RFC5322Date.parse("Wed, 32 Nov 2026 10:23:19 +0000") == nil)
        #expect(RFC5322Date.parse("Wed, 25 Nov 2026") == nil)
        #expect(RFC5322Date.parse("25 Nov 2026 24:00:00 +0000") == nil)
    }

    @Test("a year no Int64 seconds reach is nil, not a trap: a received Date field is the sender's to write")
    func farYears() {
        #expect(RFC5322Date.parse("1 Jan 99999999999999 00:00 +0000") == nil)
        #expect(RFC5322Date.parse("1 Jan 9223372036854775807 00:00 +0000") == nil)
        #expect(RFC5322Date.parse("1 Jan -9223372036854775808 00:00 +0000") == nil)
        #expect(RFC5322Date.parse("1 Jan 292277026596 00:00 +0000") == 9_223_372_036_825_516_800)
    }
}
