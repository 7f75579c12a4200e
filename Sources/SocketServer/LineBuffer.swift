/// A loop's gathered lines, written straight into the buffer's spare room: an array takes only finished bytes,
/// so each access-log line was formatted on the stack and then copied in through the array's general append.
///
/// Not copyable: it owns its memory, freed when the loop is.
struct LineBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private let initialCapacity: Int
    /// Bytes held.
    private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes (0: none until the first line).
    init(capacity: Int) {
        base = .allocate(capacity: capacity)
        self.capacity = capacity
        initialCapacity = capacity
    }

    deinit {
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// Lets `write` fill at most `maximum` bytes after those held; `write` returns how many it wrote.
    mutating func append(atMost maximum: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Int) {
        if capacity - count < maximum { grow(to: Swift.max(count + maximum, capacity * 2)) }
        let written = write(UnsafeMutableBufferPointer(start: base + count, count: maximum))
        precondition(written >= 0 && written <= maximum, "LineBuffer: a line longer than its room")
        count += written
    }

    /// Calls `body` with the bytes held.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Empties the buffer; the room is kept for the next lines unless one huge line made it grow far past it.
    mutating func removeAll() {
        count = 0
        guard capacity > initialCapacity * 4 else { return }
        base.deallocate()
        base = .allocate(capacity: initialCapacity)
        capacity = initialCapacity
    }

    private mutating func grow(to newCapacity: Int) {
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }
}
