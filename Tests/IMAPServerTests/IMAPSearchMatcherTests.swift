import Testing

@testable import IMAPServer

/// SEARCH's substring test (issue 81, item 2): known answers without ASCII case, the needle at either end, long
/// needles, agreement with a brute-force reference, and a needle built to make a naive scan quadratic.
@Suite("IMAP server: the search matcher, linear and without ASCII case")
struct IMAPSearchMatcherTests {
    static func matches(_ needle: String, _ haystack: String) -> Bool {
        IMAPSearchMatcher(needle.utf8).matches(Array(haystack.utf8))
    }

    /// The reference: every start tried, ASCII letters folded.
    static func naive(_ needle: [UInt8], _ haystack: [UInt8]) -> Bool {
        let (needle, haystack) = (needle.map(IMAPSearchMatcher.fold), haystack.map(IMAPSearchMatcher.fold))
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    @Test("known answers: case, either end, absent, the empty needle, non-ASCII bytes as they are")
    func knownAnswers() {
        #expect(Self.matches("hello", "Say HELLO to the world"))
        #expect(Self.matches("WoRlD", "Say HELLO to the world"))
        #expect(Self.matches("say", "Say HELLO"), "at the start")
        #expect(Self.matches("hello", "Say HELLO"), "at the end")
        #expect(Self.matches("Say HELLO", "Say HELLO"), "the whole haystack")
        #expect(!Self.matches("Say HELLO!", "Say HELLO"), "longer than the haystack")
        #expect(!Self.matches("helo", "Say HELLO"))
        #expect(!Self.matches("x", ""))
        #expect(Self.matches("", ""), "the empty needle is in everything")
        #expect(Self.matches("", "abc"))
        #expect(Self.matches("aab", "aaab"), "a partial match that must fall back")
        #expect(Self.matches("abab", "abaabab"))
        #expect(!Self.matches("abac", "ababab"))
        #expect(Self.matches("grüße", "Viele GRüße"), "UTF-8 bytes match as they are, letters folded around them")
        #expect(!Self.matches("GRÜSSE", "grüsse"), "only ASCII is folded")
        #expect(!Self.matches("[", "{"), "0x5B is not a capital")
        #expect(!Self.matches("@", "`"), "0x40 is not a capital")
    }

    @Test("a slice, an array and a non-contiguous collection answer alike")
    func collections() {
        let matcher = IMAPSearchMatcher("needle".utf8)
        let text = Array("hay hay NEEDLE hay".utf8)
        #expect(matcher.matches(text))
        #expect(matcher.matches(text[4...]))
        #expect(!matcher.matches(text[9...]))
        #expect(matcher.matches(text.lazy.map { $0 }))
        #expect(matcher.matches("hay NeEdLe".utf8))
    }

    /// Every string of up to `length` bytes over `alphabet`.
    static func strings(_ alphabet: [UInt8], upTo length: Int) -> [[UInt8]] {
        var all: [[UInt8]] = [[]]
        var last: [[UInt8]] = [[]]
        for _ in 0..<length {
            last = last.flatMap { prefix in alphabet.map { prefix + [$0] } }
            all += last
        }
        return all
    }

    @Test("agrees with the brute-force reference on every needle of up to 4 and haystack of up to 7 over a, A, b")
    func agreesWithReference() {
        let alphabet = Array("aAb".utf8)
        var disagreements: [String] = []
        for needle in Self.strings(alphabet, upTo: 4) {
            let matcher = IMAPSearchMatcher(needle)
            for haystack in Self.strings(alphabet, upTo: 7)
            where matcher.matches(haystack) != Self.naive(needle, haystack) {
                disagreements.append(String(decoding: needle + Array(" in ".utf8) + haystack, as: UTF8.self))
            }
        }
        #expect(disagreements.isEmpty)
    }

    @Test("long needles: 64 KiB found at the end of 2 MiB, and one byte off not found")
    func longNeedles() {
        let needle = Array(repeating: UInt8(ascii: "a"), count: 65_535) + [UInt8(ascii: "b")]
        var haystack = Array(repeating: UInt8(ascii: "A"), count: 2 << 20)
        #expect(!IMAPSearchMatcher(needle).matches(haystack))
        haystack[haystack.count - 1] = UInt8(ascii: "B")
        #expect(IMAPSearchMatcher(needle).matches(haystack))
        #expect(IMAPSearchMatcher(haystack).matches(haystack), "a needle as long as the haystack")
    }

    /// `aaa...ab` over `aaa...a`: a scan that tries every start compares 64 Ki bytes at each of 2 Mi starts (2^37
    /// comparisons, hours); the linear matcher reads 2 MiB once. The time limit only catches the quadratic case.
    @Test("the quadratic case of a naive scan: 2 MiB of `a` against `a` x 65,535 + `b`, 32 times",
        .timeLimit(.minutes(1)))
    func adversarial() {
        let needle = IMAPSearchMatcher(Array(repeating: UInt8(ascii: "a"), count: 65_535) + [UInt8(ascii: "b")])
        let haystack = Array(repeating: UInt8(ascii: "a"), count: 2 << 20)
        for _ in 0..<32 { #expect(!needle.matches(haystack)) }
    }
}
