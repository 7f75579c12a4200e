import Testing

@testable import MailStore

/// The keyword caps' rule, pure (issue 81 item 12): what a write adds is checked, never what a message already had.
@Suite("MailKeywordLimits: the rule of the keyword caps")
struct MailKeywordLimitsTests {
    static let limits = MailKeywordLimits()

    static func keywords(_ count: Int, _ prefix: String = "k") -> Set<String> {
        Set((0..<count).map { "\(prefix)\($0)" })
    }

    @Test("the documented defaults: 50 bytes (Dovecot's mail_max_keyword_length), 64 a message, 256 an address")
    func defaults() {
        #expect(Self.limits.maxKeywordBytes == 50)
        #expect(Self.limits.maxPerMessage == 64)
        #expect(Self.limits.maxPerAddress == 256)
    }

    @Test("a message: 64 keywords of 50 bytes fit, a 65th or a 51st byte does not; system flags are not counted")
    func perMessage() {
        let limits = Self.limits
        #expect(limits.violation(before: [], after: Self.keywords(64)) == nil)
        #expect(limits.violation(before: [], after: Self.keywords(65)) == .perMessage)
        #expect(limits.violation(before: [], after: Self.keywords(64).union(MailKeywordLimits.systemKeywords)) == nil)
        #expect(limits.violation(before: [], after: [String(repeating: "x", count: 50)]) == nil)
        #expect(limits.violation(before: [], after: [String(repeating: "x", count: 51)]) == .keywordLength)
        // Bytes, not characters: 26 two-byte characters are 52 bytes.
        #expect(limits.violation(before: [], after: [String(repeating: "é", count: 26)]) == .keywordLength)
    }

    @Test("only what is added is checked: a message past the caps from before may keep or lose keywords")
    func onlyAdditions() {
        let limits = Self.limits
        let legacy = Self.keywords(100).union([String(repeating: "x", count: 80)])
        #expect(limits.violation(before: legacy, after: legacy) == nil)
        #expect(limits.violation(before: legacy, after: legacy.union(["$seen"])) == nil)
        #expect(limits.violation(before: legacy, after: Self.keywords(90)) == nil)
        #expect(limits.violation(before: legacy, after: legacy.union(["one-more"])) == .perMessage)
    }

    @Test("an address: 256 distinct keywords; a known one may be added anywhere, a new one past 256 may not")
    func perAddress() {
        let limits = Self.limits
        let known = Self.keywords(256)
        #expect(limits.violation(adding: ["k3"], toAddressWith: known) == nil)
        #expect(limits.violation(adding: ["$flagged"], toAddressWith: known) == nil)
        #expect(limits.violation(adding: ["new"], toAddressWith: known) == .perAddress)
        #expect(limits.violation(adding: Self.keywords(56, "n"), toAddressWith: Self.keywords(200)) == nil)
        #expect(limits.violation(adding: Self.keywords(57, "n"), toAddressWith: Self.keywords(200)) == .perAddress)
    }

    @Test("a header's tags: those that fit, in name order; none too long, none past the message's or address's room")
    func fitting() {
        let limits = Self.limits
        let offered = Self.keywords(10, "t").union([String(repeating: "z", count: 51)])
        #expect(limits.fitting(offered, besides: [], known: []) == Self.keywords(10, "t"))
        #expect(limits.fitting(offered, besides: Self.keywords(60), known: []) == ["t0", "t1", "t2", "t3"])
        let besides = limits.fitting(offered, besides: ["$seen", "t0"], known: [])
        #expect(besides == Self.keywords(10, "t").subtracting(["t0"]))
        // An address at its 256 takes only the tags it already knows.
        #expect(limits.fitting(offered, besides: [], known: Self.keywords(254).union(["t7", "t8"])) == ["t7", "t8"])
        #expect(limits.fitting(offered, besides: [], known: Self.keywords(250)).count == 6)
    }
}
