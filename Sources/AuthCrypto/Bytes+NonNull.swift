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
