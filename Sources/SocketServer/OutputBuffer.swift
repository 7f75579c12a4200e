/// Bytes queued for a socket and how far they have been written.
///
/// `@frozen` and `@inlinable`: protocol state machines in other modules call these on every request,
/// and a call that cannot be inlined made the compiler copy the whole machine around it.
@frozen
public struct OutputBuffer: Sendable {
    /// Above this many retained bytes an emptied buffer gives its storage back.
    @usableFromInline static var retainedCapacity: Int { 64 * 1024 }

    @usableFromInline var bytes: [UInt8] = []
    @usableFromInline var offset = 0

    /// An empty buffer.
    @inlinable public init() {}

    /// Bytes not yet written.
    @inlinable public var unsentCount: Int { bytes.count - offset }

    /// Whether every queued byte has been written.
    @inlinable public var isEmpty: Bool { offset == bytes.count }

    /// Queues `more` after what is already there.
    @inlinable public mutating func append(_ more: [UInt8]) {
        bytes.append(contentsOf: more)
    }

    /// Lets `body` append to the storage directly (an encoder writing in place).
    @inlinable public mutating func withAppendableBytes<R>(_ body: (inout [UInt8]) throws -> R) rethrows -> R {
        try body(&bytes)
    }

    /// Marks `count` bytes written; an emptied buffer starts again at its beginning.
    @inlinable public mutating func consume(_ count: Int) {
        offset = min(bytes.count, offset + count)
        if offset == bytes.count {
            bytes.removeAll(keepingCapacity: bytes.capacity <= OutputBuffer.retainedCapacity)
            offset = 0
        }
    }

    /// Drops everything queued.
    @inlinable public mutating func clear() {
        bytes = []
        offset = 0
    }

    /// Calls `body` with the unsent bytes.
    @inlinable public func withUnsentBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
    }
}
