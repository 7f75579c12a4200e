import IMAP
import Synchronization

/// The `ENVELOPE`s FETCH has parsed, by message id, shared by every session of one listener (Dovecot keeps them in its
/// cache file): a stored message's bytes never change (a copy is another message with an id of its own), so the
/// envelope parsed from them once is the message's envelope for its life, and a FETCH of envelopes kept here reads
/// and parses no message bytes. Flags, size and dates are never kept here: they come from the session's view.
///
/// Bounded by ``IMAPServerConfiguration/envelopeCacheEntries`` in two generations of at most half each: when the newer
/// is full it becomes the older and the older is dropped; an envelope found in the older is carried into the newer.
/// Used from the connections' drivers under a lock (no hop to another actor on a FETCH).
final class IMAPEnvelopeCache: Sendable {
    private struct Generations {
        var newer: [String: IMAPEnvelope] = [:]
        var older: [String: IMAPEnvelope] = [:]
    }

    /// The most envelopes kept.
    let capacity: Int
    private let generations = Mutex(Generations())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The kept envelopes of `ids`, by id; an id with none kept is absent.
    func envelopes(_ ids: some Sequence<String>) -> [String: IMAPEnvelope] {
        generations.withLock { kept in
            var found: [String: IMAPEnvelope] = [:]
            for id in ids {
                if let envelope = kept.newer[id] {
                    found[id] = envelope
                } else if let envelope = kept.older[id] {
                    found[id] = envelope
                    Self.add(id, envelope, to: &kept, capacity: capacity)
                }
            }
            return found
        }
    }

    /// Keeps `envelopes`, each parsed from its message's stored bytes.
    func keep(_ envelopes: [String: IMAPEnvelope]) {
        guard !envelopes.isEmpty else { return }
        generations.withLock { kept in
            for (id, envelope) in envelopes { Self.add(id, envelope, to: &kept, capacity: capacity) }
        }
    }

    /// How many envelopes are kept (for tests).
    var count: Int { generations.withLock { $0.newer.count + $0.older.count } }

    private static func add(_ id: String, _ envelope: IMAPEnvelope, to kept: inout Generations, capacity: Int) {
        guard capacity >= 2 else { return }
        if kept.newer.count >= capacity / 2 {
            kept.older = kept.newer
            kept.newer = [:]
        }
        kept.newer[id] = envelope
    }
}
