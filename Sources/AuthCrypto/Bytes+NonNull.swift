extension Array where Element == UInt8 {
    /// Calls `body` with a pointer that is never nil, even for an empty array.
    ///
    /// Some C functions read a NULL pointer as "no argument" rather than "empty input".
    func withNonNullPointer<Result, Failure: Error>(
        _ body: (UnsafePointer<UInt8>, Int) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        if isEmpty {
            var zero: UInt8 = 0
            return try withUnsafePointer(to: &zero) { pointer throws(Failure) in try body(pointer, 0) }
        }
        return try withUnsafeBufferPointer { buffer throws(Failure) in try body(buffer.baseAddress!, buffer.count) }
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// Calls `body` with the buffer's address, or with the address of a zero byte when an empty buffer has none.
    func withNonNullBase<Result, Failure: Error>(
        _ body: (UnsafePointer<UInt8>, Int) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        if let base = baseAddress { return try body(base, count) }
        var zero: UInt8 = 0
        return try withUnsafePointer(to: &zero) { pointer throws(Failure) in try body(pointer, 0) }
    }
}
