/// A search string (RFC 9051 §6.4.4) made ready to find in message text: a substring test that ignores ASCII case,
/// in time linear in the haystack plus the needle (Knuth-Morris-Pratt over case-folded bytes).
///
/// The needle is folded and its failure table built once per key, so a search over many messages pays for it once;
/// each haystack is read once, front to back, never copied and never backed up: a needle of `aaa...ab` over a body
/// of `aaa...` costs what any other does, where a naive scan costs haystack × needle (issue 81, item 2).
struct IMAPSearchMatcher: Sendable {
    /// The needle, ASCII letters lower-cased.
    let needle: [UInt8]
    /// `failure[i]`: the length of the longest proper prefix of `needle[0...i]` that is also its suffix.
    private let failure: [Int]

    init(_ needle: some Collection<UInt8>) {
        let folded = needle.map(Self.fold)
        var failure = Array(repeating: 0, count: folded.count)
        var length = 0
        for index in folded.indices.dropFirst() {
            while length > 0 && folded[index] != folded[length] { length = failure[length - 1] }
            if folded[index] == folded[length] { length += 1 }
            failure[index] = length
        }
        self.needle = folded
        self.failure = failure
    }

    /// Whether `haystack` holds the needle, ASCII letters compared without case. The empty needle is in everything.
    func matches(_ haystack: some Collection<UInt8>) -> Bool {
        guard !needle.isEmpty else { return true }
        if let found = haystack.withContiguousStorageIfAvailable({ scan($0) }) { return found }
        return scan(haystack)
    }

    private func scan(_ haystack: some Collection<UInt8>) -> Bool {
        needle.withUnsafeBufferPointer { needle in
            failure.withUnsafeBufferPointer { failure in
                var matched = 0  // how many of the needle's bytes end at the byte before this one
                for byte in haystack {
                    let byte = Self.fold(byte)
                    while matched > 0 && needle[matched] != byte { matched = failure[matched - 1] }
                    if needle[matched] == byte {
                        matched += 1
                        if matched == needle.count { return true }
                    }
                }
                return false
            }
        }
    }

    /// `byte` with an ASCII capital made small; every other byte as it is (UTF-8's multi-byte sequences unchanged).
    static func fold(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }
}
