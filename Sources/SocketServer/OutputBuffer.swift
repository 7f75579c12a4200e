/// Bytes queued for a socket and how far they have been written.
///
/// `@frozen` and `@inlinable`: protocol state machines in other modules call these on every request,
/// and a call that cannot be inlined made the compiler copy the whole machine around it.
@frozen
public struct OutputBuffer: Sendable {
    /// Above this much room an emptied buffer gives its storage back.
    @usableFromInline let retainedCapacity: Int

    /// Room already initialized: `bytes[offset..<end]` are queued, what follows `end` is spare room that
    /// `withAppendableRoom` writes into directly, and an emptied buffer only moves `end` back.
    @usableFromInline var bytes: [UInt8] = []
    @usableFromInline var offset = 0
    @usableFromInline var end = 0

    /// An empty buffer that keeps up to `retainedCapacity` bytes of room once emptied.
    @inlinable public init(retainedCapacity: Int = 64 * 1024) {
        self.retainedCapacity = retainedCapacity
    }

    /// Bytes not yet written.
    @inlinable public var unsentCount: Int { end - offset }

    /// Whether every queued byte has been written.
    @inlinable public var isEmpty: Bool { offset == end }

    /// Queues `more` after what is already there.
    @inlinable public mutating func append(_ more: [UInt8]) {
        withAppendableRoom(atMost: more.count) { room in
            _ = room.initialize(from: more)
            return more.count
        }
    }

    /// Lets `write` fill at most `maximum` bytes after what is queued (an encoder writing in place); `write`
    /// returns how many it wrote (more traps).
    @inlinable public mutating func withAppendableRoom(
        atMost maximum: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Int
    ) {
        if bytes.count - end < maximum {
            bytes.append(contentsOf: repeatElement(0, count: Swift.max(end + maximum, bytes.count * 2) - bytes.count))
        }
        guard maximum > 0 else { return }
        let start = end
        // The room is in bounds (made just above): a pointer to it, not a bounds-checked slice.
        let written = bytes.withUnsafeMutableBufferPointer { all in
            write(UnsafeMutableBufferPointer(start: all.baseAddress! + start, count: maximum))
        }
        precondition(written >= 0 && written <= maximum, "OutputBuffer: more written than the room made")
        end += written
    }

    /// Marks `count` bytes written; an emptied buffer starts again at its beginning.
    @inlinable public mutating func consume(_ count: Int) {
        offset = min(end, offset + count)
        if offset == end {
            offset = 0
            end = 0
            if bytes.count > retainedCapacity { bytes = [] }
        }
    }

    /// Drops everything queued.
    @inlinable public mutating func clear() {
        bytes = []
        offset = 0
        end = 0
    }

    /// Calls `body` with the unsent bytes.
    @inlinable public func withUnsentBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[offset..<end])) }
    }
}
