/// Case by ASCII's rules only: `A`-`Z` and `a`-`z`, every other character left exactly as it is. Swift's
/// `lowercased()` follows Unicode's, which folds KELVIN SIGN (`U+212A`) onto `k` and `U+0130` onto `i` with a
/// combining dot: never use it on an address.
public enum ASCIICase {
    /// `text` with `A`-`Z` made `a`-`z`.
    public static func lowered(_ text: some StringProtocol) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value | 0x20)! : scalar)
        }
        return String(scalars)
    }
}
