import IMAP
import Synchronization

/// The `ENVELOPE`s FETCH has parsed, by message id, shared by every session of one listener (Dovecot keeps them in its
/// cache file): a stored message's bytes never change (a copy is another message with an id of its own), so the
/// envelope parsed from them once is the message's envelope for its life, and a FETCH of envelopes kept here reads
/// and parses no message bytes. Flags, size and dates are never kept here: they come from the session's view.
///
/// Bounded by ``IMAPServerConfiguration/envelopeCacheEntries``, every one of which it holds: a mailbox of up to that
/// many messages stays whole, however often it is read end to end (two generations of half each, as before, dropped
/// half of a mailbox larger than one generation on every such read, and parsed it again: issue 84, 50,000 messages).
/// When full, the entry a clock hand reaches without its found mark goes (the second-chance rule); an envelope found
/// since the hand last passed is kept one round more. Used from the connections' drivers under a lock (no hop to
/// another actor on a FETCH).
final class IMAPEnvelopeCache: Sendable {
    private struct Slot {
        let id: String
        let envelope: IMAPEnvelope
        var found = false
    }

    private struct Slots {
        var byID: [String: Int] = [:]
        var slots: [Slot] = []
        var hand = 0
    }

    /// The most envelopes kept.
    let capacity: Int
    private let kept = Mutex(Slots())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The kept envelope of each of `ids`, in their order; nil for an id with none kept. An array, not a dictionary: a
    /// FETCH of a whole mailbox asks for every message's, and hashing each id into a result was a third of its time.
    func envelopes(_ ids: some Collection<String>) -> [IMAPEnvelope?] {
        kept.withLock { kept in
            var found: [IMAPEnvelope?] = []
            found.reserveCapacity(ids.count)
            for id in ids {
                guard let slot = kept.byID[id] else {
                    found.append(nil)
                    continue
                }
                found.append(kept.slots[slot].envelope)
                kept.slots[slot].found = true
            }
            return found
        }
    }

    /// Keeps `envelopes`, each parsed from its message's stored bytes.
    func keep(_ envelopes: [String: IMAPEnvelope]) {
        guard !envelopes.isEmpty, capacity >= 1 else { return }
        kept.withLock { kept in
            for (id, envelope) in envelopes where kept.byID[id] == nil {
                Self.add(Slot(id: id, envelope: envelope), to: &kept, capacity: capacity)
            }
        }
    }

    /// How many envelopes are kept (for tests).
    var count: Int { kept.withLock { $0.byID.count } }

    private static func add(_ slot: Slot, to kept: inout Slots, capacity: Int) {
        guard kept.slots.count >= capacity else {
            kept.byID[slot.id] = kept.slots.count
            kept.slots.append(slot)
            return
        }
        while kept.slots[kept.hand].found {
            kept.slots[kept.hand].found = false
            kept.hand = (kept.hand + 1) % capacity
        }
        kept.byID[kept.slots[kept.hand].id] = nil
        kept.byID[slot.id] = kept.hand
        kept.slots[kept.hand] = slot
        kept.hand = (kept.hand + 1) % capacity
    }
}
