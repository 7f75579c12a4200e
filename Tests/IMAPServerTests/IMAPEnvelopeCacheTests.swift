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
        #expect(found == [Self.envelope("one"), Self.envelope("two"), nil], "in the order asked; nil where none is kept")
        #expect(found[0]?.subject == Array("one".utf8))
    }

    @Test("never more than its capacity; when full, the one the hand reaches unfound goes, a found one stays a round")
    func bounded() {
        let cache = IMAPEnvelopeCache(capacity: 4)
        cache.keep(["a": Self.envelope("a")])
        cache.keep(["b": Self.envelope("b")])
        cache.keep(["c": Self.envelope("c")])
        cache.keep(["d": Self.envelope("d")])
        #expect(cache.count == 4)
        #expect(cache.envelopes(["b"]) == [Self.envelope("b")])  // b found: marked
        cache.keep(["e": Self.envelope("e")])  // the hand at a, unfound: a goes
        cache.keep(["f": Self.envelope("f")])  // the hand at b, found: passed over (unmarked); c goes
        #expect(cache.envelopes(["a", "c"]) == [nil, nil])
        #expect(cache.envelopes(["b", "d", "e", "f"]).allSatisfy { $0 != nil })
        for index in 0..<100 { cache.keep(["x\(index)": Self.envelope("x")]) }
        #expect(cache.count == 4)
        #expect(IMAPEnvelopeCache(capacity: 0).envelopes(["a"]) == [nil])
    }

    @Test("a mailbox as large as the capacity, read end to end again and again, stays whole (issue 84)")
    func wholeMailbox() {
        let cache = IMAPEnvelopeCache(capacity: 6)
        let ids = (1...6).map { "m\($0)" }
        for round in 0..<3 {
            let found = cache.envelopes(ids)
            #expect(found.compactMap { $0 }.count == (round == 0 ? 0 : 6))
            let missing = zip(ids, found).filter { $0.1 == nil }.map(\.0)
            cache.keep(Dictionary(uniqueKeysWithValues: missing.map { ($0, Self.envelope($0)) }))
        }
        #expect(cache.count == 6)
    }
}
