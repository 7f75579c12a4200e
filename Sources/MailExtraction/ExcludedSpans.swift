import MIME

/// The stretches of a source where digits are never a code: its URLs (``MessageLinks``' text rules, and `www.` names
/// written without a scheme) and its email addresses (a run of address characters on each side of an `@`).
enum ExcludedSpans {
    /// The spans of `scalars`, sorted, not overlapping.
    static func find(in scalars: [Unicode.Scalar]) -> [Range<Int>] {
        var spans = MessageLinks.urlRanges(in: scalars)
        let count = scalars.count
        var index = 0
        while index < count {
            let scalar = scalars[index]
            if scalar == "@" {
                var start = index
                while start > 0, start > index - 256, isAddressScalar(scalars[start - 1]) { start -= 1 }
                var end = index + 1
                while end < count, end < index + 256, isAddressScalar(scalars[end]) { end += 1 }
                if start < index, end > index + 1 { spans.append(start..<end) }
                index = end
                continue
            }
            if scalar == "w" || scalar == "W", index + 4 < count, index == 0 || !isAddressScalar(scalars[index - 1]),
                scalars[index..<index + 4].map({ $0.properties.lowercaseMapping }) == ["w", "w", "w", "."]
            {
                var end = index + 4
                while end < count, !scalars[end].isWhitespaceScalar, !"<>\"".unicodeScalars.contains(scalars[end])
                {
                    end += 1
                }
                spans.append(index..<end)
                index = end
                continue
            }
            index += 1
        }
        spans.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int>] = []
        for span in spans {
            if let last = merged.last, span.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
            } else {
                merged.append(span)
            }
        }
        return merged
    }

    private static func isAddressScalar(_ scalar: Unicode.Scalar) -> Bool {
        CodeTokenizer.isAlphanumeric(scalar) || "._%+-".unicodeScalars.contains(scalar)
    }
}
