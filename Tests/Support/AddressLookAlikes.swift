/// The Unicode look-alikes of review 6 (issue 66 item 1), each beside the ASCII address it would become under Swift's
/// `lowercased()` or a compatibility mapping: KELVIN SIGN, LONG S, `U+0130`, a combining dot on an `i`, fullwidth
/// letters. Every surface must keep each apart from its ASCII address.
public enum AddressLookAlikes {
    public static let table: [(spelled: String, ascii: String)] = [
        ("\u{212A}ate@example.org", "kate@example.org"),
        ("ki\u{017F}\u{017F}@example.org", "kiss@example.org"),
        ("\u{0130}ris@example.org", "iris@example.org"),
        ("i\u{0307}ris@example.org", "iris@example.org"),
        ("\u{FF2B}\u{FF41}\u{FF54}\u{FF45}@example.org", "kate@example.org"),
    ]
}
