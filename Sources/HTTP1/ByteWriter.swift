/// Bytes written straight into room already made at the end of an array (`appendWriting`): one capacity
/// and uniqueness check for a whole response head or log line, where each small `append` checked both
/// (about 70 checks per response). Every write is bounds-checked against the room made, and the writer
/// cannot be copied, so it cannot outlive the room its closure was given.
@usableFromInline
package struct ByteWriter: ~Copyable {
    @usableFromInline let start: UnsafeMutablePointer<UInt8>
    @usableFromInline var end: UnsafeMutablePointer<UInt8>
    @usableFromInline let limit: UnsafeMutablePointer<UInt8>

    /// A writer into `room` (at least one byte), from its start.
    @inlinable
    package init(_ room: UnsafeMutableBufferPointer<UInt8>) {
        start = room.baseAddress!
        end = start
        limit = start + room.count
    }

    /// The bytes written so far.
    @inlinable
    package var count: Int { end - start }

    /// The bytes written from `offset` (a `count` read earlier) on.
    @inlinable
    package func written(from offset: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: start + offset, count: count - offset)
    }

    /// Takes back the last `n` bytes written (at most all of them).
    @inlinable
    package mutating func unwrite(_ n: Int) {
        end -= min(n, count)
    }

    @inlinable @inline(__always)
    mutating func advance(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(limit - end >= n, "ByteWriter: more written than the room made")
        defer { end += n }
        return end
    }

    @inlinable @inline(__always)
    package mutating func byte(_ byte: UInt8) {
        advance(1).pointee = byte
    }

    @inlinable @inline(__always)
    package mutating func bytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        advance(bytes.count).update(from: base, count: bytes.count)
    }

    @inlinable @inline(__always)
    package mutating func literal(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes($0) }
    }

    /// `value` in decimal, as `String(value)` writes it.
    @inlinable @inline(__always)
    package mutating func decimal(_ value: UInt64) {
        precondition(limit - end >= 20, "ByteWriter: more written than the room made")
        end += DecimalText.write(value, to: end)
    }
}

extension Array where Element == UInt8 {
    /// Appends what `body` writes through a `ByteWriter`, which may write at most `maximum` bytes (more
    /// traps). The bytes are written in temporary room (on the stack up to a kilobyte) and appended with one
    /// copy: keep `maximum` to a head or a line, and append bodies themselves.
    @inlinable
    package mutating func appendWriting(atMost maximum: Int, _ body: (inout ByteWriter) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Swift.max(maximum, 1)) { room in
            var writer = ByteWriter(UnsafeMutableBufferPointer(rebasing: room[0..<maximum]))
            body(&writer)
            append(contentsOf: UnsafeBufferPointer(start: room.baseAddress, count: writer.count))
        }
    }
}
