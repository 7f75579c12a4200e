/// A loop's registrants by descriptor: an array indexed by the descriptor itself, which the kernel keeps
/// small and dense (the lowest free number is always the next one handed out). Looked up once per ready
/// descriptor and timer, without hashing the descriptor as a `Dictionary` would.
struct Registrants {
    private var slots: [(any LoopRegistrant)?] = []

    /// How many are registered.
    private(set) var count = 0

    /// The registrant of `fd`, nil for none.
    subscript(fd: Int32) -> (any LoopRegistrant)? {
        let index = Int(fd)
        return index >= 0 && index < slots.count ? slots[index] : nil
    }

    /// Puts `registrant` under its descriptor.
    mutating func insert(_ registrant: any LoopRegistrant) {
        let index = Int(registrant.fd)
        precondition(index >= 0, "Registrants: a negative descriptor")
        if index >= slots.count {
            slots.append(contentsOf: repeatElement(nil, count: Swift.max(index + 1, slots.count * 2) - slots.count))
        }
        if slots[index] == nil { count += 1 }
        slots[index] = registrant
    }

    /// Removes the registrant of `fd`.
    mutating func remove(_ fd: Int32) {
        let index = Int(fd)
        guard index >= 0, index < slots.count, slots[index] != nil else { return }
        slots[index] = nil
        count -= 1
    }

    /// Every registrant, in descriptor order: a copy, so that the caller may change the table meanwhile.
    var all: [any LoopRegistrant] { slots.compactMap { $0 } }
}
