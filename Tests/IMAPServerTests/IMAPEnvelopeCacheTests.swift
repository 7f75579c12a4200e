import IMAP
import Testing

@testable import IMAPServer

/// The listener's parsed envelopes: found by message id, bounded, the recently found kept longest.
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

    @Test("never more than its capacity; an envelope found in the older half is carried into the newer")
    func bounded() {
        let cache = IMAPEnvelopeCache(capacity: 4)
        cache.keep(["a": Self.envelope("a"), "b": Self.envelope("b")])
        #expect(cache.envelopes(["a"]).count == 1)
        cache.keep(["c": Self.envelope("c")])  // the newer half was full: a and b are the older now
        #expect(cache.envelopes(["a"]).count == 1, "a found in the older: carried into the newer (c, a)")
        cache.keep(["d": Self.envelope("d")])  // the newer (c, a) becomes the older; b is dropped
        #expect(cache.envelopes(["b"]).isEmpty)
        #expect(cache.envelopes(["a", "c", "d"]).count == 3)
        for index in 0..<100 { cache.keep(["x\(index)": Self.envelope("x")]) }
        #expect(cache.count <= 4)
        #expect(IMAPEnvelopeCache(capacity: 0).envelopes(["a"]).isEmpty)
    }
}
