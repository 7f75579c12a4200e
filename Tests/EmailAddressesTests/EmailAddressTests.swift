import PosternTestSupport
import Testing

@testable import EmailAddresses

/// One normalisation of an address (issue 66 item 1): ASCII case only in the local part, IDNA's ASCII form for the
/// domain, and the Unicode look-alikes that Swift's `lowercased()` (or NFKC) would fold onto an ASCII address kept
/// apart.
@Suite("EmailAddresses: an address is compared as an address")
struct EmailAddressTests {
    /// Review 6's look-alikes, and KELVIN SIGN in a capitalised address.
    static let confusables = AddressLookAlikes.table + [("\u{212A}ATE@EXAMPLE.ORG", "kate@example.org")]

    @Test("ASCII case folds in the local part and the domain; nothing else changes")
    func asciiCase() throws {
        #expect(EmailAddress.normalized("Kate@Example.ORG") == "kate@example.org")
        #expect(EmailAddress.same("KATE@example.org", "kate@EXAMPLE.org"))
        let kept = try #require(EmailAddress("Ka\u{00C9}te@example.org"))
        #expect(kept.localPart == "ka\u{00C9}te")
        #expect(!kept.localPartIsASCII)
        #expect(try #require(EmailAddress("kate@example.org")).localPartIsASCII)
    }

    @Test("every confusable is another address, whose local part is not ASCII, and no fold makes it the ASCII one")
    func confusablesStayApart() throws {
        for (spelled, lookAlike) in Self.confusables {
            let address = try #require(EmailAddress(spelled), "\(spelled)")
            #expect(address != EmailAddress(lookAlike), "\(spelled)")
            #expect(!EmailAddress.same(spelled, lookAlike), "\(spelled)")
            #expect(!address.localPartIsASCII, "\(spelled)")
            #expect(address.text != lookAlike, "\(spelled)")
            // What the old rule did: Swift's lowercased() makes some of them the ASCII address outright.
            if spelled.hasPrefix("\u{212A}") { #expect(spelled.lowercased() == lookAlike) }
        }
    }

    @Test("equality is by bytes, as SQL compares the stored form, not by canonical equivalence")
    func bytewise() throws {
        let composed = try #require(EmailAddress("jos\u{00E9}@example.org"))
        let decomposed = try #require(EmailAddress("jose\u{0301}@example.org"))
        #expect(composed.text == decomposed.text)  // Swift's String == says equal...
        #expect(composed != decomposed)  // ...the address does not, as a SQL `=` would not.
        #expect(Set([composed, decomposed]).count == 2)
    }

    @Test("not an address: no @, two, an empty local part, an empty or bad domain")
    func refused() {
        for text in ["kate", "kate@", "@example.org", "a@b@example.org", "kate@.example.org", "kate@example..org",
            "kate@example.org.", "kate@exa mple.org", "kate@exam_ple.org", "kate@\u{212A}.example",
            "ka\u{1B}[2Jte@example.org", "kate\u{0A}@example.org", "ka\u{85}te@example.org"]
        {
            #expect(EmailAddress(text) == nil, "\(text)")
        }
    }

    @Test("a Unicode domain becomes its A-label; a look-alike of an ASCII domain is refused, never folded onto it")
    func domains() throws {
        #expect(EmailDomain("B\u{00FC}cher.Example")?.name == "xn--bcher-kva.example")
        #expect(EmailDomain("bu\u{0308}cher.example")?.name == "xn--bcher-kva.example")  // NFC first (RFC 5891 5.2)
        #expect(EmailDomain("m\u{00FC}nchen.de")?.name == "xn--mnchen-3ya.de")
        #expect(EmailDomain("xn--bcher-kva.example")?.name == "xn--bcher-kva.example")
        #expect(EmailDomain("EXAMPLE.org")?.name == "example.org")
        // The confusables: a capital, KELVIN SIGN, LONG S, U+0130 and fullwidth letters would need a mapping (UTS 46)
        // and are refused; a combining dot is a letter of its own domain, far from "example".
        for text in ["B\u{00DC}cher.example", "\u{212A}ate.example", "ki\u{017F}\u{017F}.example", "\u{0130}ris.example",
            "\u{FF4B}ate.example", "\u{0301}x.example", "a\u{200B}b.example", "a\u{00A0}b.example"]
        {
            #expect(EmailDomain(text) == nil, "\(text)")
        }
        #expect(EmailDomain("i\u{0307}ris.example")?.name == "xn--iris-qwc.example")
        #expect(EmailDomain(String(repeating: "a", count: 64) + ".example") == nil)
        #expect(EmailDomain(String(repeating: "\u{00FC}", count: 70) + ".example") == nil)
    }

    @Test("Punycode: RFC 3492 section 7.1's samples (A) and (B), and IDNA's well-known labels")
    func punycode() {
        func encode(_ values: [UInt32]) -> String? { Punycode.encode(values.compactMap(Unicode.Scalar.init)) }
        #expect(
            encode([0x0644, 0x064A, 0x0647, 0x0645, 0x0627, 0x0628, 0x062A, 0x0643, 0x0644, 0x0645, 0x0648, 0x0634,
                0x0639, 0x0631, 0x0628, 0x064A, 0x061F]) == "egbpdaj6bu4bxfgehfvwxn")
        #expect(
            encode([0x4ED6, 0x4EEC, 0x4E3A, 0x4EC0, 0x4E48, 0x4E0D, 0x8BF4, 0x4E2D, 0x6587]) == "ihqwcrb4cv8a8dqg056pqjye")
        #expect(Punycode.encode(Array("b\u{00FC}cher".unicodeScalars)) == "bcher-kva")
        #expect(Punycode.encode(Array("\u{00FC}".unicodeScalars)) == "tda")
        #expect(Punycode.encode(Array("\u{4F8B}\u{3048}".unicodeScalars)) == "r8jz45g")
    }

    @Test("ASCIICase lowers A-Z only")
    func asciiCaseOnly() {
        #expect(ASCIICase.lowered("AZaz09-\u{212A}\u{0130}\u{00C9}") == "azaz09-\u{212A}\u{0130}\u{00C9}")
    }
}
