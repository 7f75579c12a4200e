/// When each key of a shared key ring signs, retires and leaves, from the only times stored with it:
/// it is published at `createdAt`, signs from `signsFrom`, and retires when the next key of its kind
/// (by `signsFrom`, then `generation`, the order keys were made in) starts signing. Pure, so the rules are
/// tested on their own.
struct KeySchedule: Sendable, Equatable {
    struct Entry: Sendable, Equatable, Hashable {
        var kid: String
        var kind: KeyInfo.Kind
        var createdAt: Int64
        var signsFrom: Int64
        var generation: Int64
    }

    /// Every key, in signing order.
    let entries: [Entry]

    init(_ entries: [Entry]) {
        self.entries = entries.sorted { ($0.signsFrom, $0.generation) < ($1.signsFrom, $1.generation) }
    }

    /// The key of `kind` that signs at `now`: the last one whose `signsFrom` has come.
    func active(_ kind: KeyInfo.Kind, at now: Int64) -> Entry? {
        entries.last { $0.kind == kind && $0.signsFrom <= now }
    }

    /// When `entry` stopped signing (its successor's `signsFrom`), or nil while nothing has replaced it.
    func retiredAt(_ entry: Entry, at now: Int64) -> Int64? {
        guard let index = entries.firstIndex(of: entry) else { return nil }
        return entries[(index + 1)...].first { $0.kind == entry.kind && $0.signsFrom <= now }?.signsFrom
    }

    /// Keys retired more than `retention` seconds before `now`: no token they signed is still valid.
    func expired(at now: Int64, retention: Int64) -> [Entry] {
        entries.filter { entry in retiredAt(entry, at: now).map { $0 + retention < now } ?? false }
    }

    /// The keys of `kind` that are published but do not sign yet.
    func pending(_ kind: KeyInfo.Kind, at now: Int64) -> [Entry] {
        entries.filter { $0.kind == kind && $0.signsFrom > now }
    }
}
