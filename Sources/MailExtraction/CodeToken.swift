/// A run of digits, or of ASCII letters and digits, found in a source: a code-shaped one (a candidate), or a number
/// that is not a code but still stands between a label and what follows it (an order number after `Order`).
struct CodeToken {
    enum Shape {
        /// Code-shaped: 4–10 digits, or upper-case letters and digits with a digit, grouped or not.
        case candidate
        /// A number that cannot be a code: four characters or more of a date, a phone number, a price or a long id,
        /// or a shorter part of an amount, a time or a date.
        case number
        /// Two or three digits: not a token alone, but a group of a spaced code (`123 456`) or of a phone number.
        case fragment
    }

    var shape: Shape
    /// The scalars it covers in its source.
    var range: Range<Int>
    /// As written, a space between space-separated groups.
    var value: String
    /// Digits only (no letter).
    var numeric: Bool
    /// Four digits from 1900 to 2099: a code only when a code word stands right before it.
    var yearLike: Bool
    /// Whether the character before it or after it makes it a part of something larger (a decimal, a time, an
    /// address, an amount), decided on each side so that grouped runs take the outer sides of their ends.
    var boundLeft: Bool
    var boundRight: Bool

    /// A code-shaped token whose sides are free: what the scoring weighs.
    var isCandidate: Bool { shape == .candidate && !boundLeft && !boundRight }
    /// A token that takes a label written before it (so that the label does not reach a token after it).
    var takesLabel: Bool { shape == .number || shape == .candidate }
}
