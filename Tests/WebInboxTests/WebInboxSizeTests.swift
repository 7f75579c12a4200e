import Testing

@testable import WebInbox

/// Sizes on the pages are in one binary unit system, as the quotas are, and never wrap between number and unit.
@Suite("Web inbox: sizes in binary units, number and unit kept together")
struct WebInboxSizeTests {
    @Test(
        "B, KiB, MiB, GiB: one decimal below ten unless whole, else whole units; a no-break space before the unit",
        arguments: [
            (0, "0 B"), (654, "654 B"), (1023, "1023 B"), (1024, "1 KiB"), (1536, "1.5 KiB"),
            (10 * 1024 + 300, "10 KiB"),
            (250 * 1024 * 1024, "250 MiB"), (1024 * 1024 * 1024, "1 GiB"), (3 * 1024 * 1024 * 1024 / 2, "1.5 GiB"),
        ] as [(Int64, String)])
    func size(bytes: Int64, shown: String) {
        #expect(WebInboxPage.size(bytes) == shown.replacingOccurrences(of: " ", with: "\u{00A0}"))
    }

    @Test("a quota of 1 GiB reads 1 GiB, not 1024 MB")
    func quota() {
        #expect(WebInboxPage.size(250) + " of " + WebInboxPage.size(1 << 30) == "250\u{00A0}B of 1\u{00A0}GiB")
    }
}
