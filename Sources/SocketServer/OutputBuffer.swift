/// Bytes queued for a socket and how far they have been written.
public struct OutputBuffer: Sendable {
    /// Above this many retained bytes an emptied buffer gives its storage back.
    static let retainedCapacity = 64 * 1024

    private var bytes: [UInt8] = []
    private var offset = 0

    /// An empty buffer.
    public init() {}

    /// Bytes not yet written.
    public var unsentCount: Int { bytes.count - offset }

    /// Whether every queued byte has been written.
    public var isEmpty: Bool { offset == bytes.count }

    /// Queues `more` after what is already there.
    public mutating func append(_ more: [UInt8]) {
        bytes.append(contentsOf: more)
    }

    /// Lets `body` append to the storage directly (an encoder writing in place).
    public mutating func withAppendableBytes<R>(_ body: (inout [UInt8]) throws -> R) rethrows -> R {
        try body(&bytes)
    }

    /// Marks `count` bytes written; an emptied buffer starts again at its beginning.
    public mutating func consume(_ count: Int) {
        offset = min(bytes.count, offset + count)
        if offset == bytes.count {
            bytes.removeAll(keepingCapacity: bytes.capacity <= OutputBuffer.retainedCapacity)
            offset = 0
        }
    }

    /// Drops everything queued.
    public mutating func clear() {
        bytes = []
        offset = 0
    }

    /// Calls `body` with the unsent bytes.
    public func withUnsentBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
    }
}
