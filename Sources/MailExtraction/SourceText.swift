/// One source's text as the code rules read it: Unicode scalars, lines broken by `\n`, and for each scalar whether it
/// is set in an emphasized (bold, large, letter-spaced) element. Built from the subject, the text part or the visible
/// text of the HTML part, never longer than its limit.
struct SourceText {
    var scalars: [Unicode.Scalar] = []
    var emphasized: [Bool] = []
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// `text` as it stands, no scalar emphasized: the subject or the text part (CRLF and CR as `\n`).
    init(plain text: String, capacity: Int) {
        self.capacity = capacity
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" && previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = scalar == "\r"
            guard append(scalar == "\r" ? "\n" : scalar, emphasized: false) else { break }
        }
    }

    var isFull: Bool { scalars.count >= capacity }

    /// Appends `scalar`; false when the source is full.
    @discardableResult
    mutating func append(_ scalar: Unicode.Scalar, emphasized flag: Bool) -> Bool {
        guard scalars.count < capacity else { return false }
        scalars.append(scalar)
        emphasized.append(flag)
        return true
    }
}
