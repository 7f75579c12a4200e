import IMAP
import Testing

@testable import IMAPServer

/// The listener's parsed envelopes: found by message id, bounded, holding all of its capacity, the found kept longer.
@Suite("IMAP server: the envelope cache")
struct IMAPEnvelopeCacheTests {
    static func envelope(_ subject: String) -> IMAPEnvelope {
        guard case .envelope(let envelope)? = IMAPMessageRenderer(
            raw: Array("From: a@b.example\r\nSubject: \(subject)\r\n\r\nbody\r\n".utf8)
        ).item(.envelope) else { preconditionFailure("no envelope") }
        return envelope
    }

    @Test("an envelope kept is found by its message's id, the same value; an id never kept is absent")
    func found() {
        let cache = IMAPEnvelopeCache(capacity: 8)
        cache.keep(["m1": Self.envelope("one"), "m2": Self.envelope("two")])
        let found = cache.envelopes(["m1", "m2", "m3"])
        #expect(found == ["m1": Self.envelope("one"), "m2": Self.envelope("two")])
        #expect(found["m1"]?.subject == Array("one".utf8))
    }

    @Test("never more than its capacity; when full, the one the hand reaches unfound goes, a found one stays a round")
    func bounded() {
        let cache = IMAPEnvelopeCache(capacity: 4)
        cache.keep(["a": Self.envelope("a")])
        cache.keep(["b": Self.envelope("b")])
        cache.keep(["c": Self.envelope("c")])
        cache.keep(["d": Self.envelope("d")])
        #expect(cache.count == 4)
        #expect(cache.envelopes(["b"]).count == 1)  // b found: marked
        cache.keep(["e": Self.envelope("e")])  // the hand at a, unfound: a goes
        cache.keep(["f": Self.envelope("f")])  // the hand at b, found: passed over (unmarked); c goes
        #expect(cache.envelopes(["a", "c"]).isEmpty)
        #expect(cache.envelopes(["b", "d", "e", "f"]).count == 4)
        for index in 0..<100 { cache.keep(["x\(index)": Self.envelope("x")]) }
        #expect(cache.count == 4)
        #expect(IMAPEnvelopeCache(capacity: 0).envelopes(["a"]).isEmpty)
    }

    @Test("a mailbox as large as the capacity, read end to end again and again, stays whole (issue 84)")
    func wholeMailbox() {
        let cache = IMAPEnvelopeCache(capacity: 6)
        let ids = (1...6).map { "m\($0)" }
        for round in 0..<3 {
            let found = cache.envelopes(ids)
            #expect(found.count == (round == 0 ? 0 : 6))
            cache.keep(Dictionary(uniqueKeysWithValues: ids.filter { found[$0] == nil }.map { ($0, Self.envelope($0)) }))
        }
        #expect(cache.count == 6)
    }
}
