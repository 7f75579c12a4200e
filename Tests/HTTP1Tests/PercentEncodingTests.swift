import Testing

@testable import HTTP1

@Suite("Percent-encoding of a query component")
struct PercentEncodingTests {
    @Test("unreserved bytes stay, every other byte is %XX, and decoding gives the text back")
    func roundTrip() {
        #expect(PercentEncoding.encode("aZ09-._~") == "aZ09-._~")
        #expect(PercentEncoding.encode("/oauth/authorize?a=b c&d=é+") == "%2Foauth%2Fauthorize%3Fa%3Db%20c%26d%3D%C3%A9%2B")
        for text in ["/owner?x=1&y=%41", "é ✓ +&=#", ""] {
            #expect(PercentDecoding.decode(PercentEncoding.encode(text), plusAsSpace: true) == text)
        }
    }
}
